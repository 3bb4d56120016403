package plots

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile renders p (see Write) into the file at path atomically: the page
// goes to a temporary file in the same directory, which is synced and then
// renamed over path, so a reader never sees a half-written report and a
// failed render leaves any previous file untouched.
func WriteFile(path string, p Page) (err error) {
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(buf.Bytes()); err != nil {
		_ = f.Close()
		return fmt.Errorf("plots: writing %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("plots: syncing %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("plots: closing %s: %w", tmp, err)
	}
	// CreateTemp makes the file 0600; a report is meant to be shared.
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}
