package e2e

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"slimroute/internal/ibsimtest"
)

// screenshot renders a local file in headless Chromium and returns the
// share of pixels that are not (near) white.
func screenshot(t *testing.T, file string) (ink float64, w, h int) {
	t.Helper()
	ibsimtest.RequireTools(t, "chromium")
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1000,900", "--screenshot="+shot, "file://"+file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	fh, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xE000 || g < 0xE000 || bl < 0xE000 {
				dark++
			}
		}
	}
	return float64(dark) / float64(b.Dx()*b.Dy()), b.Dx(), b.Dy()
}

// TestCablingSheetsRender shows the rack sheets and the rack diagram to a
// browser: both render to a 1000×900 picture with text and lines on a
// white page — neither blank nor a solid block.
func TestCablingSheetsRender(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan")
	run(t, "cabling", "plan", "--slimfly", "5", "-o", plan)
	for _, name := range []string{"racks.html", "racks.svg"} {
		ink, w, h := screenshot(t, filepath.Join(plan, name))
		if w != 1000 || h != 900 || ink < 0.02 || ink > 0.6 {
			t.Errorf("%s renders %d×%d with %.1f%% ink", name, w, h, 100*ink)
		}
		t.Logf("%s: %d×%d, %.1f%% ink", name, w, h, 100*ink)
	}
}
