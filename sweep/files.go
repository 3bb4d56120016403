package sweep

import (
	"os"
	"path/filepath"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
)

// WriteFiles writes the sweep's outputs into dir: sweep.csv,
// sweep-summary.csv, sweep-paired.csv and sweep.html, each atomically.
// They are functions of the results alone, so they are byte-identical
// for any parallelism, resumption or sharding.
func (r *Results) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	html, err := r.HTML()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{SweepCSVFile, r.RunsCSV()},
		{SummaryCSVFile, r.SummaryCSV()},
		{PairedCSVFile, r.PairedCSV()},
		{SweepHTMLFile, html},
	} {
		if err := outdir.WriteFileAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
