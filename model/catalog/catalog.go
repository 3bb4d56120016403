// Package catalog gives every page of the simulated database a dense global
// page id (gid), so that the buffer pool, the OS page cache and the heap
// state can keep per-page facts in flat slices instead of maps.
//
// PostgreSQL identifies a page by its buffer tag (tablespace, database,
// relation file, fork, block; src/include/storage/buf_internals.h). Here a
// relation (one fork of one relation file) is a RelID and its blocks map to
// gids in chunks of ChunkPages, allocated as the relation grows (smgrextend),
// so a growing relation never needs its neighbours to move.
package catalog

import "fmt"

// ChunkPages is the number of consecutive blocks that share a gid range.
const ChunkPages = 1024

const chunkShift = 10

// Kind is what a relation fork holds.
type Kind uint8

// Relation kinds.
const (
	Heap Kind = iota
	BTree
	VM
	FSM
)

func (k Kind) String() string {
	switch k {
	case Heap:
		return "heap"
	case BTree:
		return "btree"
	case VM:
		return "vm"
	case FSM:
		return "fsm"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// RelID is a dense relation number.
type RelID int32

// Relation is one fork of one relation file.
type Relation struct {
	Name    string
	Kind    Kind
	NBlocks int32
	chunks  []int32 // chunk index -> first gid of the chunk
}

// Catalog holds every relation and the global page numbering.
type Catalog struct {
	rels       []Relation
	chunkRel   []RelID // global chunk -> relation
	chunkFirst []int32 // global chunk -> first block number in its relation
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{} }

// Add creates a relation with nblocks blocks.
func (c *Catalog) Add(name string, kind Kind, nblocks int32) RelID {
	id := RelID(len(c.rels))
	c.rels = append(c.rels, Relation{Name: name, Kind: kind})
	for c.rels[id].NBlocks < nblocks {
		if _, gid := c.Extend(id); gid < 0 {
			break // callers check the space first (model.EstimateRun)
		}
	}
	return id
}

// maxChunks is how many chunks fit below gid 2^31.
const maxChunks = 1 << (31 - chunkShift)

// Extend adds one block to rel and returns its block number and gid. When
// the gid space (2^31 pages, 16 TB) or the relation's block numbers are
// exhausted it adds nothing and returns gid -1.
func (c *Catalog) Extend(rel RelID) (block int32, gid int32) {
	r := &c.rels[rel]
	block = r.NBlocks
	if block == 1<<31-1 || int(block>>chunkShift) == len(r.chunks) && len(c.chunkRel) >= maxChunks {
		return block, -1
	}
	if int(block>>chunkShift) == len(r.chunks) {
		chunk := int32(len(c.chunkRel))
		c.chunkRel = append(c.chunkRel, rel)
		c.chunkFirst = append(c.chunkFirst, block)
		r.chunks = append(r.chunks, chunk<<chunkShift)
	}
	r.NBlocks++
	return block, r.chunks[block>>chunkShift] + block&(ChunkPages-1)
}

// Truncate empties rel: its blocks are gone; extending it again reuses its
// page ids from block 0.
func (c *Catalog) Truncate(rel RelID) { c.rels[rel].NBlocks = 0 }

// GID returns the global page id of (rel, block). block must be < NBlocks.
func (c *Catalog) GID(rel RelID, block int32) int32 {
	return c.rels[rel].chunks[block>>chunkShift] + block&(ChunkPages-1)
}

// Locate returns the relation and block of a gid.
func (c *Catalog) Locate(gid int32) (RelID, int32) {
	ch := gid >> chunkShift
	return c.chunkRel[ch], c.chunkFirst[ch] + gid&(ChunkPages-1)
}

// Rel returns the relation's description.
func (c *Catalog) Rel(rel RelID) *Relation { return &c.rels[rel] }

// NumRelations returns how many relations exist.
func (c *Catalog) NumRelations() int { return len(c.rels) }

// GIDSpace returns an upper bound (exclusive) of every gid allocated so far;
// per-page slices sized to it can be indexed by any valid gid.
func (c *Catalog) GIDSpace() int32 { return int32(len(c.chunkRel)) << chunkShift }
