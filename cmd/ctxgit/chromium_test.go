package main

import (
	_ "embed"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// chromiumCondition is the scripts' [chromium]: the HTML timeline is
// opened in headless Chromium only with CTXGIT_CHROMIUM=1 (.ci/run sets
// it and installs Debian's chromium): a browser start costs seconds, too
// many for every `go test ./...`. Asked for and missing is a failure, not
// a skip.
func chromiumCondition() (bool, error) {
	if os.Getenv("CTXGIT_CHROMIUM") != "1" {
		return false, nil
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		return false, fmt.Errorf("CTXGIT_CHROMIUM=1 but no chromium on PATH (apt-get install -y chromium): %v", err)
	}
	return true, nil
}

// pngcheck FILE [COPY] fails unless FILE is a PNG screenshot of the
// timeline: not blank (a twentieth of its pixels not near white: the page
// is mostly text on white) and holding
// the chart's line colour (#0969da) and the compaction rule's (#cf222e).
// With CTXGIT_UPDATE_SCREENSHOT=1 it then copies FILE to COPY, relative to
// the package directory (docs/timeline.png for the README).
func cmdPNGCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: pngcheck FILE [COPY]")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		ts.Fatalf("pngcheck: %s: %v", args[0], err)
	}
	b := img.Bounds()
	total, ink, line, rule := 0, 0, 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb(img, x, y)
			total++
			if r < 235 || g < 235 || bl < 235 {
				ink++
			}
			if near(r, g, bl, 0x09, 0x69, 0xda) {
				line++
			}
			if near(r, g, bl, 0xcf, 0x22, 0x2e) {
				rule++
			}
		}
	}
	ts.Logf("pngcheck %s: %dx%d, %d%% ink, %d line pixels, %d compaction pixels", args[0], b.Dx(), b.Dy(), ink*100/total, line, rule)
	switch {
	case ink*20 < total:
		ts.Fatalf("pngcheck: %s is blank: %d of %d pixels are not white", args[0], ink, total)
	case line < 200:
		ts.Fatalf("pngcheck: %s has no context line: %d pixels of #0969da", args[0], line)
	case rule < 20:
		ts.Fatalf("pngcheck: %s has no compaction rule: %d pixels of #cf222e", args[0], rule)
	}
	if len(args) == 2 && os.Getenv("CTXGIT_UPDATE_SCREENSHOT") == "1" {
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Check(os.WriteFile(args[1], data, 0o644))
	}
}

func rgb(img image.Image, x, y int) (r, g, b int) {
	r32, g32, b32, _ := img.At(x, y).RGBA()
	return int(r32 >> 8), int(g32 >> 8), int(b32 >> 8)
}

func near(r, g, b, wr, wg, wb int) bool {
	d := func(a, b int) int {
		if a > b {
			return a - b
		}
		return b - a
	}
	return d(r, wr) < 24 && d(g, wg) < 24 && d(b, wb) < 24
}

//go:embed boxcheck.js
var boxCheckScript string

// boxcheck PAGE OUT writes OUT: the HTML page PAGE with boxcheck.js run at
// its end, which measures the chart in the browser that renders it and
// writes what it found into <pre id="boxcheck">, for --dump-dom. The
// report's page itself runs no script; only this copy does.
func cmdBoxCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: boxcheck PAGE OUT")
	}
	page := ts.ReadFile(args[0])
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		ts.Fatalf("boxcheck: %s has no </body>", args[0])
	}
	out := page[:i] + "<script>\n" + boxCheckScript + "</script>\n" + page[i:]
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}
