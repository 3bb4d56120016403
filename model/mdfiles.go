package model

import (
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/oscache"
)

// relSegBlocks is RELSEG_SIZE: md.c stores a relation fork in files of
// 1 GB (131072 blocks of 8 kB), each opened separately (mdopenfork,
// _mdfd_getseg), so the kernel's readahead state and end-of-file are per
// segment file.
const relSegBlocks = 131072

// segmentFiles places pages in their relation's segment files for the OS
// cache's readahead: a file is a relation and a segment number.
type segmentFiles struct{ cat *catalog.Catalog }

func (f segmentFiles) Locate(gid int32) (file int64, block, nblocks int32) {
	rel, blk := f.cat.Locate(gid)
	seg := blk / relSegBlocks
	n := min(f.cat.Rel(rel).NBlocks-seg*relSegBlocks, relSegBlocks)
	return int64(rel)<<20 | int64(seg), blk - seg*relSegBlocks, n
}

func (f segmentFiles) Page(file int64, block int32) int32 {
	return f.cat.GID(catalog.RelID(file>>20), int32(file&(1<<20-1))*relSegBlocks+block)
}

// readahead returns the backend's readahead state for the segment file
// holding gid: each backend opens its own file descriptors (fd.c's virtual
// file descriptors), and the kernel keeps readahead state per open file.
// The system catalogs get none (nil: a read of the page alone): the model
// lumps PostgreSQL's many small catalog files, read at random, into one
// relation, whose pages readahead would bring in together as no real
// catalog read does.
func (b *backend) readahead(gid int32) *oscache.RAState {
	if e := b.e; e.sc.Server.SystemCatalogs {
		if rel, _ := e.cat.Locate(gid); rel == e.db.sysCatalog || rel == e.db.sysGlobal {
			return nil
		}
	}
	return b.raFiles.of(b.e.cat, gid)
}

// openFiles is one process's open segment files' readahead states (the
// kernel's struct file_ra_state of each file descriptor).
type openFiles map[int64]*oscache.RAState

// of returns the state of the segment file holding gid, opening it (a
// fresh state) on first use.
func (f *openFiles) of(cat *catalog.Catalog, gid int32) *oscache.RAState {
	file, _, _ := segmentFiles{cat}.Locate(gid)
	if *f == nil {
		*f = openFiles{}
	}
	ra := (*f)[file]
	if ra == nil {
		ra = &oscache.RAState{}
		(*f)[file] = ra
	}
	return ra
}
