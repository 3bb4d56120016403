// Package interrupt turns SIGINT and SIGTERM into a flag that pgbufsim's
// long-running commands poll between events (model.Options.Interrupted),
// so that an interrupted run stops cleanly: temporary files removed, no
// partial output, one line on stderr, exit 2. A second signal ends the
// process at once.
package interrupt

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Watch watches for SIGINT and SIGTERM from Start until Stop.
type Watch struct {
	hit  atomic.Bool
	name atomic.Value // string
	ch   chan os.Signal
	done chan struct{}
}

// Start begins watching.
func Start() *Watch {
	w := &Watch{ch: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(w.ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for {
			select {
			case s := <-w.ch:
				if w.hit.Load() {
					os.Stderr.WriteString("simulate: second " + sigName(s) + ": exiting now\n")
					os.Exit(2)
				}
				w.name.Store(sigName(s))
				w.hit.Store(true)
			case <-w.done:
				return
			}
		}
	}()
	return w
}

// Interrupted reports whether a signal arrived.
func (w *Watch) Interrupted() bool { return w.hit.Load() }

// Signal names the signal that arrived ("" if none).
func (w *Watch) Signal() string {
	s, _ := w.name.Load().(string)
	return s
}

// Stop ends the watch and restores the default handling.
func (w *Watch) Stop() {
	signal.Stop(w.ch)
	close(w.done)
}

func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
