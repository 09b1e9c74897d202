package e2e

import (
	"context"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"slimroute/fabric"
	"slimroute/internal/ibsimtest"
	"slimroute/internal/wiringfaults"
)

// chromium runs headless Chromium on a local file with extra arguments
// (--screenshot=…, --dump-dom) and returns its standard output. Chromium
// starts helper processes; it runs in its own process group, and that
// group (and only it) is killed if it overruns.
func chromium(t *testing.T, file string, args ...string) string {
	t.Helper()
	ibsimtest.RequireTools(t, "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "profile")}, args...)
	cmd := exec.CommandContext(ctx, "chromium", append(args, "file://"+file)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", file, err, stderr.String())
	}
	return stdout.String()
}

// screenshot renders a local file in headless Chromium and returns the
// share of pixels that are not (near) white.
func screenshot(t *testing.T, file string) (ink float64, w, h int) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	chromium(t, file, "--window-size=1000,900", "--screenshot="+shot)
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
	for _, name := range []string{"racks.html", "racks.svg", "labels.html"} {
		ink, w, h := screenshot(t, filepath.Join(plan, name))
		if w != 1000 || h != 900 || ink < 0.02 || ink > 0.6 {
			t.Errorf("%s renders %d×%d with %.1f%% ink", name, w, h, 100*ink)
		}
		t.Logf("%s: %d×%d, %.1f%% ink", name, w, h, 100*ink)
	}
}

// printWidth is the printable width of an A4 page with the sheets' 12 mm
// margins, in CSS pixels (96 per inch): (210 − 24) mm.
const printWidth = "703"

// pageBoundsScript runs in the rendered page once it has loaded and lists
// every element that lies (partly) outside the page: left of or above its
// origin, right of its width, or — in an SVG — outside the viewBox, by
// the element's rendered bounding box (getBBox: text with its real font).
// On a page made to hold an SVG (svgOnly), only the drawing is checked: it
// may be wider than a printed page, but nothing may leave its viewBox.
// It appends the list to the page, where --dump-dom shows it.
const pageBoundsScript = `<script>
window.addEventListener('load', () => {
  const bad = [], W = document.documentElement.clientWidth, svgOnly = window.svgOnly === true;
  let n = 0;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName !== 'svg') {
      if (typeof el.getBBox !== 'function' || el.tagName === 'title') continue;
      const vb = el.ownerSVGElement.viewBox.baseVal, b = el.getBBox();
      n++;
      if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5)
        bad.push(el.tagName + ' ' + JSON.stringify((el.textContent || el.getAttribute('d') || '').slice(0, 60)) +
          ' at x ' + b.x.toFixed(1) + '..' + (b.x + b.width).toFixed(1) + ', y ' + b.y.toFixed(1) + '..' + (b.y + b.height).toFixed(1) +
          ' outside viewBox ' + vb.width + 'x' + vb.height);
      continue;
    }
    if (svgOnly) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    n++;
    if (r.left < -0.5 || r.top + window.scrollY < -0.5 || r.right > W + 0.5)
      bad.push(el.tagName + ' ' + JSON.stringify(el.textContent.slice(0, 60)) + ' at x ' + r.left.toFixed(1) + '..' + r.right.toFixed(1) + ' outside the page width ' + W);
  }
  if (!svgOnly && document.documentElement.scrollWidth > W) bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + W);
  const out = document.createElement('pre');
  out.id = 'bounds-report';
  out.textContent = 'checked ' + n + ' elements\n' + bad.join('\n');
  document.body.appendChild(out);
});
</script>`

var boundsReport = regexp.MustCompile(`(?s)<pre id="bounds-report">(.*?)</pre>`)

// outsideThePage renders a sheet in Chromium at the printable page width
// and returns the number of elements checked and those outside the page.
// An SVG is inlined into an HTML page for the check.
func outsideThePage(t *testing.T, sheet string) (checked string, outside []string) {
	t.Helper()
	b, err := os.ReadFile(sheet)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if strings.HasSuffix(sheet, ".svg") {
		page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}</style><script>var svgOnly = true</script></head><body>" + page + "</body></html>"
	}
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		t.Fatalf("%s: no </body>", sheet)
	}
	probe := filepath.Join(t.TempDir(), filepath.Base(sheet)+".probe.html")
	if err := os.WriteFile(probe, []byte(page[:i]+pageBoundsScript+page[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
	m := boundsReport.FindStringSubmatch(chromium(t, probe, "--window-size="+printWidth+",1000", "--virtual-time-budget=20000", "--dump-dom"))
	if m == nil {
		t.Fatalf("%s: the bounds script left no report", sheet)
	}
	lines := strings.Split(strings.TrimRight(html.UnescapeString(m[1]), "\n"), "\n")
	return lines[0], lines[1:]
}

// TestCablingSheetsStayOnThePage renders every sheet of the plan of every
// spec in testdata/specs and of the built-in q=5 Slim Fly in Chromium and
// requires every element to lie on the page: inside the viewBox for the
// rack diagram, within the printable A4 width for the HTML sheets.
func TestCablingSheetsStayOnThePage(t *testing.T) {
	t.Parallel() // (own files and Chromium profiles; overlaps the other long e2e tests)
	specs, err := filepath.Glob("../testdata/specs/*.toml")
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs in testdata/specs: %v", err)
	}
	type source struct {
		name string
		args []string
	}
	sources := []source{{"slimfly-q5", []string{"--slimfly", "5"}}}
	for _, s := range specs {
		sources = append(sources, source{strings.TrimSuffix(filepath.Base(s), ".toml"), []string{"--config", s}})
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			plan := filepath.Join(t.TempDir(), "plan")
			run(t, append(append([]string{"cabling", "plan"}, src.args...), "-o", plan)...)
			for _, sheet := range []string{"racks.svg", "racks.html", "labels.html"} {
				checked, outside := outsideThePage(t, filepath.Join(plan, sheet))
				t.Logf("%s: %s, %d outside the page", sheet, checked, len(outside))
				if len(outside) > 0 {
					t.Errorf("%s: %d elements outside the page, e.g.\n%s", sheet, len(outside), strings.Join(outside[:min(len(outside), 5)], "\n"))
				}
			}
		})
	}
}

// TestCablingTasksRenderOnThePage: cabling verify --html on the q = 5
// plan with generated faults in four racks writes a task sheet that
// Chromium renders with text and lines, every element on the printable
// page and inside its rack drawing; with no fault it is one page saying
// there is nothing to do.
func TestCablingTasksRenderOnThePage(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan")
	run(t, "cabling", "plan", "--slimfly", "5", "-o", plan)
	p := readFabric(t, filepath.Join(plan, "fabric.json"), fabric.FormatJSON)
	for _, faults := range []int{0, 8} {
		c, err := wiringfaults.Generate(p, 3, wiringfaults.Options{Naming: wiringfaults.FactoryNewGUIDs, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		tasks := filepath.Join(dir, fmt.Sprintf("tasks-%d.html", faults))
		out, status := runStatus(t, "cabling", "verify", "--plan", plan, "--discovered", writeFabricFile(t, filepath.Join(dir, fmt.Sprintf("found-%d.txt", faults)), c.Found, fabric.FormatIBNetDiscover), "--html", tasks)
		if want := map[bool]int{true: 0, false: 1}[faults == 0]; status != want {
			t.Fatalf("%d faults: exit %d, want %d:\n%s", faults, status, want, out)
		}
		b, err := os.ReadFile(tasks)
		if err != nil {
			t.Fatal(err)
		}
		pages := strings.Count(string(b), "<section>")
		if (faults == 0) != strings.Contains(string(b), "No tasks") || pages == 0 {
			t.Errorf("%d faults: %d pages, 'No tasks' %v", faults, pages, strings.Contains(string(b), "No tasks"))
		}
		checked, outside := outsideThePage(t, tasks)
		t.Logf("%d faults: %d pages; %s, %d outside the page", faults, pages, checked, len(outside))
		if len(outside) > 0 {
			t.Errorf("%d faults: %d elements outside the page, e.g.\n%s", faults, len(outside), strings.Join(outside[:min(len(outside), 5)], "\n"))
		}
		if ink, w, h := screenshot(t, tasks); ink < 0.002 || ink > 0.6 {
			t.Errorf("%d faults: the task sheet renders %d×%d with %.1f%% ink", faults, w, h, 100*ink)
		}
	}
}

// TestJobsPictureStaysOnThePage: analyze --jobs --svg on Slim Fly q = 7
// with three jobs draws jobs.svg that Chromium renders with every element
// inside the viewBox.
func TestJobsPictureStaysOnThePage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(file, []byte("11 hca-0-0-[0-6]-1 ring\n12 hca-1-[0-6]-0-[1-2] tree\n13 hca-0-[1-6]-3-[1-4] all-to-all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "analyze", "--slimfly", "7", "--permutations", "2", "--jobs", file, "--svg", dir)
	checked, outside := outsideThePage(t, filepath.Join(dir, "jobs.svg"))
	t.Logf("jobs.svg: %s, %d outside the page", checked, len(outside))
	if len(outside) > 0 {
		t.Errorf("%d elements outside the page, e.g.\n%s", len(outside), strings.Join(outside[:min(len(outside), 5)], "\n"))
	}
}
