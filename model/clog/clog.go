// Package clog models PostgreSQL's commit log (pg_xact, src/backend/access/
// transam/clog.c) and the SLRU buffer cache in front of it (slru.c):
//
//   - two status bits per transaction, 32768 transactions per 8 kB page
//     (CLOG_XACTS_PER_PAGE), one commit LSN per group of 32 transactions
//     (CLOG_XACTS_PER_LSN_GROUP) for asynchronous commit;
//   - a fixed number of page slots (clog_buffers by version, Buffers);
//     a lookup hits a slot or reads the page from pg_xact;
//   - victim choice as SlruSelectLRUPage: an empty slot, else the least
//     recently used valid slot, never the latest page; a dirty victim is
//     written by the process that needs the slot;
//   - from PostgreSQL 17 the slots are split into banks of 16 and a page
//     may only live in bank pageno % nbanks (LRU within the bank).
//
// The statuses of every transaction are kept here in full (the "disk"
// contents of pg_xact); the SLRU decides only what a lookup costs. A page
// whose transactions have all ended and whose commit records are flushed
// is kept compactly (Compact: only its aborted xids), so a long run's log
// costs memory in proportion to its aborts, not its transactions.
package clog

import (
	"fmt"
	"slices"
)

// XactsPerPage is CLOG_XACTS_PER_PAGE.
const XactsPerPage = 32768

// lsnGroup is CLOG_XACTS_PER_LSN_GROUP.
const lsnGroup = 32

// bankSize is SLRU_BANK_SIZE (PostgreSQL 17+).
const bankSize = 16

// Status is a transaction's commit status (clog.h).
type Status uint8

// Transaction statuses.
const (
	InProgress Status = iota
	Committed
	Aborted
)

func (s Status) String() string {
	switch s {
	case InProgress:
		return "in progress"
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Buffers returns the number of clog SLRU buffers PostgreSQL allocates
// (docs/model.md): 8 up to 9.1; min(32, max(4, NBuffers/512))
// in 9.2-9.5; min(128, max(4, NBuffers/512)) in 9.6-16; from 17
// transaction_buffers, whose 0 means NBuffers/512 rounded down to a
// multiple of 16, clamped to [16, 1024] (explicit values clamped to
// [16, 131072]).
func Buffers(version int, nbuffers int64, transactionBuffers int64) int {
	switch {
	case version <= 901:
		return 8
	case version <= 905:
		return int(min(32, max(4, nbuffers/512)))
	case version < 1700:
		return int(min(128, max(4, nbuffers/512)))
	}
	if transactionBuffers > 0 {
		return int(min(131072, max(16, transactionBuffers)))
	}
	n := nbuffers / 512
	n -= n % 16
	return int(min(1024, max(16, n)))
}

// Stats count SLRU activity (pg_stat_slru "Xact").
type Stats struct {
	Hits, Reads, Writes, Zeroed uint64
}

// Log holds every status and the SLRU state.
type Log struct {
	pages []statusPage // by clog page

	slotPage  []int32 // page in each slot, -1 = empty
	slotLRU   []int64
	slotDirty []bool
	lruCount  int64
	latest    int32 // latest_page_number: never evicted
	banks     int   // 0 = one LRU over all slots (<= 16)

	Stats Stats
}

// New creates a log with n SLRU slots; banked selects the PostgreSQL 17+
// bank layout.
func New(n int, banked bool) *Log {
	l := &Log{slotPage: make([]int32, n), slotLRU: make([]int64, n), slotDirty: make([]bool, n), latest: -1}
	for i := range l.slotPage {
		l.slotPage[i] = -1
	}
	if banked && n >= bankSize {
		l.banks = n / bankSize
	}
	return l
}

// statusPage holds one clog page's statuses: in full (status, lsn) while
// any of its transactions may still change or need its commit LSN, then
// compacted (compact true: every xid committed but those in aborted).
type statusPage struct {
	status  []uint8 // 4 statuses per byte
	lsn     []int64 // commit LSN per group of 32 xids
	compact bool
	aborted []uint32 // sorted, compacted pages only
}

// Slots returns the number of SLRU slots.
func (l *Log) Slots() int { return len(l.slotPage) }

// Page returns the clog page of xid.
func Page(xid uint32) int32 { return int32(xid / XactsPerPage) }

func (l *Log) grow(xid uint32) *statusPage {
	p := int(Page(xid))
	for len(l.pages) <= p {
		l.pages = append(l.pages, statusPage{})
	}
	sp := &l.pages[p]
	if sp.status == nil && !sp.compact {
		sp.status = make([]uint8, XactsPerPage/4)
		sp.lsn = make([]int64, XactsPerPage/lsnGroup)
	}
	return sp
}

// Get returns xid's status as stored (no cost accounting).
func (l *Log) Get(xid uint32) Status {
	p := int(Page(xid))
	if p >= len(l.pages) {
		return InProgress
	}
	sp := &l.pages[p]
	if sp.compact {
		if _, found := slices.BinarySearch(sp.aborted, xid); found {
			return Aborted
		}
		return Committed
	}
	if sp.status == nil {
		return InProgress
	}
	i := xid % XactsPerPage
	return Status(sp.status[i/4] >> (2 * (i % 4)) & 3)
}

// CommitLSN returns the commit LSN recorded for xid's LSN group (0 once the
// page is compacted: its commit records are flushed).
func (l *Log) CommitLSN(xid uint32) int64 {
	p := int(Page(xid))
	if p >= len(l.pages) || l.pages[p].lsn == nil {
		return 0
	}
	return l.pages[p].lsn[xid%XactsPerPage/lsnGroup]
}

// Compact stores page compactly if every one of its transactions has
// ended (committed or aborted) and its latest commit LSN is at or below
// flushed (the WAL flush position, so no hint bit waits on it any more).
// It reports whether the page is compact now.
func (l *Log) Compact(page int32, flushed int64) bool {
	if int(page) >= len(l.pages) {
		return false
	}
	sp := &l.pages[page]
	if sp.compact {
		return true
	}
	if sp.status == nil {
		return false
	}
	for _, x := range sp.lsn {
		if x > flushed {
			return false
		}
	}
	var aborted []uint32
	base := uint32(page) * XactsPerPage
	for i, b := range sp.status {
		if b == 0x55 { // four committed
			continue
		}
		for k := uint32(0); k < 4; k++ {
			switch Status(b >> (2 * k) & 3) {
			case Committed:
			case Aborted:
				aborted = append(aborted, base+uint32(i)*4+k)
			default:
				// xids 0-2 are never assigned (InvalidTransactionId,
				// Bootstrap, Frozen); any other in-progress xid keeps
				// the page in full.
				if x := base + uint32(i)*4 + k; x > 2 {
					return false
				}
			}
		}
	}
	*sp = statusPage{compact: true, aborted: aborted}
	return true
}

// Set records a final status (TransactionIdSetTreeStatus) and, for a
// commit, its LSN. The caller has made the page resident (Access) first.
func (l *Log) Set(xid uint32, s Status, lsn int64) {
	sp := l.grow(xid)
	if sp.compact {
		panic(fmt.Sprintf("clog: status of xid %d set after its page was compacted", xid))
	}
	i := xid % XactsPerPage
	sh := 2 * (i % 4)
	sp.status[i/4] = sp.status[i/4]&^(3<<sh) | uint8(s)<<sh
	if s == Committed && lsn > sp.lsn[i/lsnGroup] {
		sp.lsn[i/lsnGroup] = lsn
	}
	if slot := l.find(Page(xid)); slot >= 0 {
		l.slotDirty[slot] = true
	}
}

// DropSLRU empties the SLRU's slots (a server restart) and returns the
// dirty pages, which the caller writes (the shutdown checkpoint's
// CheckPointCLOG). The statuses are kept: they are pg_xact's contents.
func (l *Log) DropSLRU() []int32 {
	dirty := l.DirtyPages()
	for i := range l.slotPage {
		l.slotPage[i], l.slotLRU[i], l.slotDirty[i] = -1, 0, false
	}
	return dirty
}

// Extend makes page the latest page (ExtendCLOG zeroes it in a slot).
// It returns the page of a dirty victim the caller must write, or -1.
func (l *Log) Extend(page int32) (writeVictim int32) {
	l.latest = page
	slot, victim := l.slotFor(page)
	l.slotPage[slot] = page
	l.slotDirty[slot] = true
	l.touch(slot)
	l.Stats.Zeroed++
	return victim
}

// Access looks page up in the SLRU (SimpleLruReadPage_ReadOnly). It
// reports whether it was resident; on a miss the page is read into a slot
// and, if the slot held a dirty page, that page's number is returned for
// the caller to write first (-1 otherwise).
func (l *Log) Access(page int32) (hit bool, writeVictim int32) {
	if slot := l.find(page); slot >= 0 {
		l.touch(slot)
		l.Stats.Hits++
		return true, -1
	}
	l.Stats.Reads++
	slot, victim := l.slotFor(page)
	l.slotPage[slot] = page
	l.slotDirty[slot] = false
	l.touch(slot)
	return false, victim
}

// Resident reports whether page is in a slot, without touching it.
func (l *Log) Resident(page int32) bool { return l.find(page) >= 0 }

// DirtyPages returns the resident dirty pages and marks them clean
// (CheckPointCLOG writes them all).
func (l *Log) DirtyPages() []int32 {
	var out []int32
	for i, d := range l.slotDirty {
		if d && l.slotPage[i] >= 0 {
			out = append(out, l.slotPage[i])
			l.slotDirty[i] = false
			l.Stats.Writes++
		}
	}
	return out
}

func (l *Log) bank(page int32) (lo, hi int) {
	if l.banks == 0 {
		return 0, len(l.slotPage)
	}
	b := int(page) % l.banks
	return b * bankSize, (b + 1) * bankSize
}

func (l *Log) find(page int32) int {
	lo, hi := l.bank(page)
	for i := lo; i < hi; i++ {
		if l.slotPage[i] == page {
			return i
		}
	}
	return -1
}

func (l *Log) touch(slot int) {
	l.lruCount++
	l.slotLRU[slot] = l.lruCount
}

// slotFor picks the slot for a new page: an empty one, else the least
// recently used one that is not the latest page (SlruSelectLRUPage; ties
// go to the lower page number). A dirty victim is reported for writing.
func (l *Log) slotFor(page int32) (slot int, writeVictim int32) {
	lo, hi := l.bank(page)
	best := -1
	for i := lo; i < hi; i++ {
		p := l.slotPage[i]
		if p < 0 {
			return i, -1
		}
		if p == l.latest {
			continue
		}
		if best < 0 || l.slotLRU[i] < l.slotLRU[best] || (l.slotLRU[i] == l.slotLRU[best] && p < l.slotPage[best]) {
			best = i
		}
	}
	if best < 0 { // only the latest page is resident: take the first slot
		best = lo
	}
	writeVictim = -1
	if l.slotDirty[best] {
		writeVictim = l.slotPage[best]
		l.Stats.Writes++
	}
	return best, writeVictim
}
