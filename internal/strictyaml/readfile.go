package strictyaml

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// TooLargeError is ReadFile's error for a file over its limit.
type TooLargeError struct {
	Limit int64
	Size  int64 // the size stat reported, 0 when it could not tell (a pipe, a device)
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("the file is %d bytes, more than the %d (%d MB) it may have", e.Size, e.Limit, e.Limit>>20)
	}
	return fmt.Sprintf("the file holds more than the %d bytes (%d MB) it may have", e.Limit, e.Limit>>20)
}

// streamed holds what ReadFile read from files that can be read only once
// (a pipe, /dev/stdin, a FIFO), so that the CLI's several looks at one
// configuration (is it a sweep, a trace replay, the scenario) see the same
// bytes.
var streamed struct {
	sync.Mutex
	data map[string][]byte
}

// ReadFile reads a user's input file of at most limit bytes. It reads no
// more than limit+1 bytes whatever the file is: a regular file over the
// limit is refused before reading, and a device or a pipe (/dev/zero, a
// FIFO) is read only up to the limit, so an endless input ends in an
// error instead of filling memory. A directory is an error too
// (syscall.EISDIR).
func ReadFile(path string, limit int64) ([]byte, error) {
	// Stat before opening: opening a FIFO a second time would wait for a
	// writer that never comes.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	regular := st.Mode().IsRegular()
	if regular && st.Size() > limit {
		return nil, &TooLargeError{Limit: limit, Size: st.Size()}
	}
	if !regular {
		streamed.Lock()
		defer streamed.Unlock()
		if data, ok := streamed.data[path]; ok {
			return data, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	if !regular {
		if streamed.data == nil {
			streamed.data = map[string][]byte{}
		}
		streamed.data[path] = data
	}
	return data, nil
}
