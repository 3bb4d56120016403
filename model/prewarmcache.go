package model

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/oscache"
	"github.com/pgbufsim/pgbufsim/policies"
)

// A prewarm kept on disk. A PrewarmShare with a directory (simulate
// -prewarm-cache DIR) writes each prewarm it computes to a file there,
// named by its PrewarmKey, and a later run with the same key, in this
// process or another, reads it instead of prewarming: the buffer pool with
// its policy's state and the OS page cache's LRU, exactly what the
// in-memory share copies (prewarmshare.go). A file is used only when it
// was written by this very program (the digest of its executable is in the
// file: a new build, whose prewarm may differ, prewarms again and replaces
// it), for this key, whole (a SHA-256 of its contents closes it) and
// consistent with the run (its pool, relations and page ids); anything
// else is prewarmed again and said so. TestPrewarmCacheGivesTheSameRun
// checks that a run from the file gives the same bytes as one that
// prewarmed itself.

// prewarmMagic opens every prewarm file: a file in the directory without
// it is not pgbufsim's and is never overwritten.
const prewarmMagic = "pgbufsim prewarm 1\n"

// prewarmFile is the file of key in dir.
func prewarmFile(dir, key string) string {
	return filepath.Join(dir, "prewarm-"+key+".bin")
}

var (
	exeDigestOnce sync.Once
	exeDigest     string
)

// executableDigest is the SHA-256 of the running program's executable, or
// "" when it cannot be read (then nothing is cached on disk).
func executableDigest() string {
	exeDigestOnce.Do(func() {
		path, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return
		}
		exeDigest = hex.EncodeToString(h.Sum(nil))
	})
	return exeDigest
}

// errNoPrewarmFile says there is no file for the key (not a failure).
var errNoPrewarmFile = errors.New("no prewarm file")

// maxPrewarmFile bounds the size of the file the run may read: its pool
// (21 bytes a buffer) and policy (up to about 70 with ghost lists or
// frequency buckets), the page cache's list (4 bytes a page) and slack.
func (e *engine) maxPrewarmFile() int64 {
	return int64(e.pool.N)*256 + int64(e.cat.GIDSpace())*4 + e.os.Config().CapacityPages*4 + 1<<20
}

// readPrewarmFile reads key's file in dir into a state for this run.
func (e *engine) readPrewarmFile(dir, key string) (*prewarmState, error) {
	path := prewarmFile(dir, key)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoPrewarmFile
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > e.maxPrewarmFile() {
		return nil, fmt.Errorf("%s: %d bytes, more than a prewarm of this run can take", path, fi.Size())
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte(prewarmMagic)) || len(data) < len(prewarmMagic)+sha256.Size {
		return nil, fmt.Errorf("%s is not a pgbufsim prewarm file", path)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%s is damaged (its checksum does not match)", path)
	}
	r := policies.NewStateReader(bytes.NewReader(body[len(prewarmMagic):]))
	fileKey, digest, policy := r.GetString(1<<10), r.GetString(1<<10), r.GetString(1<<16)
	var gidSpace int32
	var relations int64
	r.Get(0, &gidSpace, &relations)
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case fileKey != key:
		return nil, fmt.Errorf("%s holds the prewarm of another scenario", path)
	case digest != executableDigest():
		return nil, fmt.Errorf("%s was written by another build of pgbufsim", path)
	case gidSpace != e.cat.GIDSpace() || relations != int64(e.cat.NumRelations()) || policy != e.policy:
		return nil, fmt.Errorf("%s does not fit this run's relations or policy", path)
	}
	repl, _, err := e.sc.Policies.Replacement.Build()
	if err != nil {
		return nil, err
	}
	pool := bufpool.New(e.pool.N, repl, e.ver <= 1800)
	if err := pool.DecodeState(r, gidSpace-1); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	lru, err := oscache.DecodeLRU(r, e.os.Config().CapacityPages, gidSpace)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &prewarmState{pool: pool, os: lru, gidSpace: gidSpace, relations: int(relations), policy: policy}, nil
}

// writePrewarmFile writes st as key's file in dir: to a temporary file
// first, renamed over the old one only when whole, so that a run that is
// interrupted or runs beside another never leaves half a file. A file of
// that name that is not pgbufsim's is left alone (an error).
func writePrewarmFile(dir, key string, st *prewarmState) error {
	digest := executableDigest()
	if digest == "" {
		return errors.New("the program's executable cannot be read, so its prewarms are not kept")
	}
	path := prewarmFile(dir, key)
	if old, err := os.Open(path); err == nil {
		head := make([]byte, len(prewarmMagic))
		_, rerr := io.ReadFull(old, head)
		old.Close()
		if rerr != nil || string(head) != prewarmMagic {
			return fmt.Errorf("%s exists and is not a pgbufsim prewarm file: not replaced", path)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".prewarm-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; removed on failure
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, h), 1<<20)
	bw.WriteString(prewarmMagic)
	w := policies.NewStateWriter(bw)
	w.PutString(key)
	w.PutString(digest)
	w.PutString(st.policy)
	w.Put(st.gidSpace, int64(st.relations))
	if err := st.pool.EncodeState(w); err != nil {
		tmp.Close()
		return err
	}
	if err := st.os.Encode(w); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(h.Sum(nil)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
