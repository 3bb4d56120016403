package oscache

import "github.com/pgbufsim/pgbufsim/sim"

// Linux readahead for buffered reads, as mm/readahead.c does it since
// 6.10 (page_cache_sync_ra, page_cache_async_ra, get_init_ra_size,
// get_next_ra_size, do_page_cache_ra) and mm/filemap.c calls it
// (filemap_get_pages):
//
//   - Each open file has its own state (struct file_ra_state: start, size,
//     async_size, prev_pos). PostgreSQL opens each 1 GB segment of a
//     relation in each backend (md.c, fd.c), so the state is per reader and
//     file (RAState).
//   - A read that finds its page missing runs the synchronous readahead: at
//     the start of the file or right after the previous read
//     (index - prev_index <= 1) an initial window of get_init_ra_size pages
//     starting at the page, its last size - req pages asynchronous; else,
//     if the pages just before are cached (a stream the state lost track
//     of), a window as long as that cached run plus the request, doubled if
//     the file is cached from its start; else the page alone, state untouched.
//   - The first page of a window's asynchronous part carries PG_readahead;
//     a read that reaches it starts the next window, as large as
//     get_next_ra_size allows (x4 while small, x2 up to the maximum), so a
//     sequential reader finds its pages read ahead of it.
//   - A window reads only pages not cached, one device request per run of
//     contiguous missing pages (the block layer splits it at
//     max_sectors_kb), clamped at the end of the file; a reader that needs
//     a page still being read waits for that read.
//
// The kernel counts in 4 kB pages, PostgreSQL reads 8 kB blocks: a read
// of block b is a request for kernel pages 2b and 2b+1, and a window
// covers the blocks its kernel pages fall in.

// kpb is the number of kernel pages (4 kB) in a PostgreSQL block (8 kB).
const kpb = 2

// FileMap places the cache's pages in files.
type FileMap interface {
	// Locate returns the file holding gid, the page's block in it and the
	// file's length in blocks.
	Locate(gid int32) (file int64, block, nblocks int32)
	// Page returns the page id of a block of a file.
	Page(file int64, block int32) int32
}

// RAState is one open file's readahead state (struct file_ra_state), in
// kernel pages. The zero value is a file just opened.
type RAState struct {
	start, size, async int64
	prevPos            int64 // kernel page after the last read, plus one (0: no read yet)
}

// readDone records where the reader's last read ended (filemap_read's
// ra->prev_pos = the position after the read).
func (ra *RAState) readDone(gid int32, files FileMap) {
	if ra == nil || files == nil {
		return
	}
	_, b, _ := files.Locate(gid)
	ra.prevPos = int64(b+1)*kpb + 1
}

// prevIndex is prev_pos >> PAGE_SHIFT; a file not read yet has prev_pos
// -1, an index no read is next to.
func (ra *RAState) prevIndex() int64 {
	if ra.prevPos == 0 {
		return -1 << 40
	}
	return ra.prevPos - 1
}

// initRASize is get_init_ra_size: the first window for a request of size
// pages, at most max.
func initRASize(size, max int64) int64 {
	n := int64(1)
	for n < size {
		n <<= 1
	}
	switch {
	case n <= max/32:
		return n * 4
	case n <= max/4:
		return n * 2
	}
	return max
}

// nextRASize is get_next_ra_size: the window after one of size cur.
func nextRASize(cur, max int64) int64 {
	switch {
	case cur < max/16:
		return 4 * cur
	case cur <= max/2:
		return 2 * cur
	}
	return max
}

// cachedK reports whether kernel page k of file (nblocks long) is cached.
func (c *Cache) cachedK(file int64, k int64, nblocks int32) bool {
	b := k / kpb
	if k < 0 || b >= int64(nblocks) {
		return false
	}
	return c.Contains(c.Files.Page(file, int32(b)))
}

// syncReadahead is page_cache_sync_ra for a read of gid that missed.
func (c *Cache) syncReadahead(gid int32, ra *RAState) { c.syncReadaheadReq(gid, ra, 1) }

// syncReadaheadReq is page_cache_sync_ra for a read of blocks blocks
// from gid whose first page missed (req_count: the rest of the read).
// A read larger than read_ahead_kb may read ahead as far as itself, up to
// the device's largest request (ractl_max_pages: bdi->io_pages).
func (c *Cache) syncReadaheadReq(gid int32, ra *RAState, blocks int32) {
	file, blk, nblocks := c.Files.Locate(gid)
	index, req, maxp := int64(blk)*kpb, int64(blocks)*kpb, c.cfg.ReadAheadKPages
	if req > maxp {
		maxp = max(maxp, min(req, int64(c.cfg.MaxBatch)*kpb))
	}
	if d := index - ra.prevIndex(); index == 0 || req > maxp || d == 0 || d == 1 {
		ra.start = index
		ra.size = initRASize(req, maxp)
		if ra.size > req {
			ra.async = ra.size - req
		} else {
			ra.async = ra.size >> 1
		}
	} else {
		// page_cache_prev_miss over at most maxp pages before index: the
		// cached run a lost sequential stream leaves behind.
		miss, fromStart := index-1, false
		for miss >= 0 && index-1-miss < maxp && c.cachedK(file, miss, nblocks) {
			miss--
		}
		if miss < 0 {
			fromStart = true
		}
		contig := index - miss - 1
		if contig <= req {
			// A standalone random read: the page alone, the state kept.
			c.doReadahead(file, nblocks, index, req, 0, gid)
			return
		}
		if fromStart {
			contig *= 2
		}
		ra.start = index
		ra.size = min(contig+req, maxp)
		ra.async = 1
	}
	c.doReadahead(file, nblocks, ra.start, ra.size, ra.async, gid)
}

// asyncReadahead is page_cache_async_ra for a read that reached gid, which
// carries the readahead mark.
func (c *Cache) asyncReadahead(gid int32, ra *RAState) {
	if c.flags[gid]&fWriteback != 0 {
		return // PG_readahead shares its bit with PG_reclaim: not a mark
	}
	odd := int64(0)
	if c.flags[gid]&fRAOdd != 0 {
		odd = 1
	}
	c.flags[gid] &^= fReadahead | fRAOdd
	file, blk, nblocks := c.Files.Locate(gid)
	index, req, maxp := int64(blk)*kpb+odd, int64(kpb), c.cfg.ReadAheadKPages
	if index == ra.start+ra.size-ra.async {
		// The expected mark: a sequential reader; push the window on.
		ra.start += ra.size
		ra.size = max(ra.size, nextRASize(ra.size, maxp))
		ra.async = ra.size
	} else {
		// A mark this state did not set (another reader's window, or
		// interleaved reads): page_cache_next_miss finds how far the
		// cached run goes and the window grows from that.
		start := index + 1
		for start-index <= maxp && c.cachedK(file, start, nblocks) {
			start++
		}
		if start-index > maxp {
			return
		}
		ra.start = start
		ra.size = nextRASize(start-index+req, maxp)
		ra.async = ra.size
	}
	c.doReadahead(file, nblocks, ra.start, ra.size, ra.async, -1)
}

// doReadahead is do_page_cache_ra / page_cache_ra_unbounded: read the
// pages of [start, start+n) (kernel pages) that are not cached, clamped
// at the end of the file, one request per contiguous run of missing
// blocks of at most MaxBatch pages; the page lookahead pages before the
// end gets the readahead mark.
// asked is the page the reader asked for (-1 for an asynchronous window);
// every other page read is counted in Stats.ReadaheadPages.
func (c *Cache) doReadahead(file int64, nblocks int32, start, n, lookahead int64, asked int32) {
	end := int64(nblocks)*kpb - 1
	if start > end || n <= 0 {
		return
	}
	if n > end-start {
		n = end - start + 1
	}
	mark := int64(-1)
	if lookahead > 0 && lookahead <= n {
		mark = start + n - lookahead
	}
	var runGid, runLen, runMark int32 = -1, 0, -1
	odd := false
	flush := func() {
		if runLen > 0 {
			c.readRun(runGid, runLen, runMark, odd)
			c.Stats.ReadaheadPages += uint64(runLen)
			if asked >= runGid && asked < runGid+runLen {
				c.Stats.ReadaheadPages--
			}
		}
		runGid, runLen, runMark = -1, 0, -1
	}
	for b := start / kpb; b <= (start+n-1)/kpb; b++ {
		g := c.Files.Page(file, int32(b))
		c.grow(g)
		if c.flags[g]&fCached != 0 {
			flush() // a cached page splits the read (read_pages, then skip it)
			continue
		}
		if runLen > 0 && (g != runGid+runLen || int(runLen) >= c.cfg.MaxBatch) {
			flush()
		}
		if runLen == 0 {
			runGid = g
		}
		runLen++
		if mark >= 0 && mark/kpb == b {
			runMark = g
			odd = mark%kpb != 0
		}
	}
	flush()
}

// ReadV is a preadv() of n consecutive blocks of one file from gid (md.c
// mdreadv: PostgreSQL 17's read streams combine up to io_combine_limit
// blocks into one call). The kernel walks the pages in order
// (filemap_read): a missing page starts the synchronous readahead for the
// rest of the request (without readahead, the page alone), a marked page
// the next window, a page being read is waited for; the call returns when
// the last page is copied. true: every page was cached and up to date;
// otherwise done.OnEvent(arg) fires at the end.
func (c *Cache) ReadV(gid int32, n int32, ra *RAState, done sim.Handler, arg int64) bool {
	if n <= 1 || c.Files == nil {
		return c.Read(gid, ra, done, arg)
	}
	c.Stats.ReadCalls++
	file, blk, _ := c.Files.Locate(gid)
	v := &readV{c: c, file: file, blk: blk, n: n, ra: ra, done: done, arg: arg}
	return v.step()
}

// readV is one preadv() in progress.
type readV struct {
	c        *Cache
	file     int64
	blk, n   int32
	i        int32 // the page being copied
	ra       *RAState
	done     sim.Handler
	arg      int64
	resuming bool
}

// step copies pages until one must be waited for (false) or all are done.
func (v *readV) step() bool {
	c := v.c
	raOn := v.ra != nil && c.cfg.ReadAheadKPages > 0
	for ; v.i < v.n; v.i++ {
		g := c.Files.Page(v.file, v.blk+v.i)
		c.grow(g)
		if v.resuming {
			v.resuming = false // this page arrived: readDone touched it
			continue
		}
		if c.flags[g]&fCached == 0 {
			c.Stats.Misses++
			if raOn {
				c.syncReadaheadReq(g, v.ra, v.n-v.i)
			}
			if c.flags[g]&fCached == 0 {
				c.readRun(g, 1, -1, false)
			}
			if c.flags[g]&fReadahead != 0 && raOn {
				c.asyncReadahead(g, v.ra)
			}
			v.wait(g)
			return false
		}
		if c.flags[g]&fReadahead != 0 && raOn {
			c.asyncReadahead(g, v.ra)
		}
		if c.flags[g]&fReading != 0 {
			c.Stats.InflightWaits++
			v.wait(g)
			return false
		}
		c.Stats.Hits++
		c.touch(g)
	}
	v.ra.readDone(c.Files.Page(v.file, v.blk+v.n-1), c.Files)
	return true
}

func (v *readV) wait(g int32) {
	v.resuming = true
	v.c.waitRead(g, v, 0)
}

// OnEvent resumes the copy after the page waited for arrived.
func (v *readV) OnEvent(int64) {
	if v.step() && v.done != nil {
		v.done.OnEvent(v.arg)
	}
}
