package policies

import (
	"errors"
	"fmt"
)

// HintCacheParams configure the hint-bit cache, Merlin Moncure's 2011
// "hint bit cache" patch for PostgreSQL 9.1 (pgsql-hackers, "hint bit cache
// v5"; never committed): a backend-local cache of transaction ids known to
// be committed, consulted before the commit log. When every unhinted tuple
// of a page is answered by the cache, the backend makes no clog lookup and
// does not set hint bits, so the page is not dirtied; a miss on any tuple
// falls back to PostgreSQL's path, which looks the xid up, sets the bits
// and dirties the page. The recalled design is a few bitmap blocks, each
// covering a contiguous range of xids with one bit per xid, the least
// recently used block replaced when a new range is needed
// (docs/model.md; sizes unverified, so both are parameters).
type HintCacheParams struct {
	Enabled bool `yaml:"enabled" doc:"consult a backend-local cache of committed xids before the clog"`
	// Size is the number of bitmap blocks.
	Size int `yaml:"size" range:"0,65536" doc:"bitmap blocks per backend"`
	// BlockXids is the xid range one block covers.
	BlockXids int `yaml:"block_xids" range:"64,16777216" doc:"xids covered by one block (one bit each)"`
}

// DefaultHintCacheParams is off, with four blocks of 65536 xids (8 kB
// each) when turned on.
func DefaultHintCacheParams() HintCacheParams {
	return HintCacheParams{Size: 4, BlockXids: 65536}
}

// Validate rejects a cache that could never answer.
func (p *HintCacheParams) Validate() error {
	if p.Enabled && p.Size == 0 {
		return errors.New("size: a hint cache of size 0 cannot answer anything; set size >= 1 or enabled: false")
	}
	if p.BlockXids%64 != 0 {
		return fmt.Errorf("block_xids: %d is not a multiple of 64", p.BlockXids)
	}
	return nil
}

// HintCache is one backend's cache.
type HintCache struct {
	blocks    []hcBlock
	span      uint32
	clock     uint64
	Hits      uint64
	Misses    uint64
	Evictions uint64
}

type hcBlock struct {
	base uint32 // first xid covered; valid only if used
	used bool
	last uint64
	bits []uint64
}

// NewHintCache creates an empty cache.
func NewHintCache(p HintCacheParams) *HintCache {
	c := &HintCache{span: uint32(p.BlockXids), blocks: make([]hcBlock, p.Size)}
	for i := range c.blocks {
		c.blocks[i].bits = make([]uint64, p.BlockXids/64)
	}
	return c
}

func (c *HintCache) block(xid uint32) *hcBlock {
	base := xid - xid%c.span
	for i := range c.blocks {
		if b := &c.blocks[i]; b.used && b.base == base {
			return b
		}
	}
	return nil
}

// Committed reports whether the cache knows xid committed (and counts a
// hit or a miss).
func (c *HintCache) Committed(xid uint32) bool {
	if b := c.block(xid); b != nil {
		off := xid - b.base
		if b.bits[off/64]>>(off%64)&1 != 0 {
			c.clock++
			b.last = c.clock
			c.Hits++
			return true
		}
	}
	c.Misses++
	return false
}

// Peek is Committed without counting or touching recency.
func (c *HintCache) Peek(xid uint32) bool {
	if b := c.block(xid); b != nil {
		off := xid - b.base
		return b.bits[off/64]>>(off%64)&1 != 0
	}
	return false
}

// Add records that xid committed, taking the least recently used block
// if no block covers its range.
func (c *HintCache) Add(xid uint32) {
	b := c.block(xid)
	if b == nil {
		b = &c.blocks[0]
		for i := range c.blocks {
			if !c.blocks[i].used {
				b = &c.blocks[i]
				break
			}
			if c.blocks[i].last < b.last {
				b = &c.blocks[i]
			}
		}
		if b.used {
			c.Evictions++
		}
		clear(b.bits)
		b.used = true
		b.base = xid - xid%c.span
	}
	off := xid - b.base
	b.bits[off/64] |= 1 << (off % 64)
	c.clock++
	b.last = c.clock
}
