// Command screenshot takes a PNG screenshot of a pgbufsim page in headless
// Chromium (internal/browsertest), as the README's picture of compare.html
// is made:
//
//	go run ./internal/browsertest/screenshot out/compare-seed/compare.html docs/images/compare-seed.png 2300
//
// The optional third argument keeps only the top HEIGHT pixels (the first
// screens of a long page). It prints any element wider than the window
// and any chart that did not draw, and exits 1 if there is one.
package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"strconv"

	"github.com/pgbufsim/pgbufsim/internal/browsertest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "screenshot:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return fmt.Errorf("usage: screenshot PAGE.html OUT.png [HEIGHT]")
	}
	height := 0
	if len(args) == 3 {
		h, err := strconv.Atoi(args[2])
		if err != nil || h <= 0 {
			return fmt.Errorf("HEIGHT %q is not a positive number of pixels", args[2])
		}
		height = h
	}
	rep, err := browsertest.Open(context.Background(), args[0], browsertest.Options{Screenshot: true})
	if err != nil {
		return err
	}
	bad := false
	for _, o := range rep.Overflows {
		fmt.Printf("wider than the %d px window: %s (to %d px)\n", rep.ViewportWidth, o.What, o.Right)
		bad = true
	}
	for _, c := range rep.Charts {
		if c.Painted == 0 || c.Points == 0 {
			fmt.Printf("chart %s did not draw data\n", c.ID)
			bad = true
		}
	}
	img, err := png.Decode(bytes.NewReader(rep.Screenshot))
	if err != nil {
		return err
	}
	if b := img.Bounds(); height > 0 && height < b.Dy() {
		img = img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+height))
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return err
	}
	if err := os.WriteFile(args[1], out.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%dx%d)\n", args[1], img.Bounds().Dx(), img.Bounds().Dy())
	if bad {
		return fmt.Errorf("the page does not fit or a chart is empty")
	}
	return nil
}
