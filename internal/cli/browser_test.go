package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// needBrowser returns Chromium's path, or skips the test: Debian's
// chromium package, or $TTFTLAB_CHROMIUM. With TTFTLAB_REQUIRE_BROWSER
// set (as in CI) a missing browser fails instead.
func needBrowser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TTFTLAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TTFTLAB_REQUIRE_BROWSER") != "" {
		t.Fatal("Chromium is not installed (TTFTLAB_REQUIRE_BROWSER is set); install it with apt-get install -y chromium")
	}
	t.Skip("skipping: Chromium is not installed (apt-get install -y chromium, or set TTFTLAB_CHROMIUM; TTFTLAB_REQUIRE_BROWSER=1 fails instead)")
	return ""
}

// shown is what the browser made of a page.
type shown struct {
	problems []string // console errors, exceptions, browser log errors
	boxes    [][2]float64
	loaded   int    // resources the page loaded besides itself
	bg       string // the body's computed background colour
	png      []byte
	// first is the id of <main>'s first element (the headline strip's is
	// "answer"); overflow names each box wider than its room.
	first    string
	overflow []string
}

// TestReportInBrowser renders the report of a real lab run (the shared
// one, reportRuns) in headless Chromium, in light and in dark mode, from
// file:// with no network: no console error, no resource loaded, every
// chart with a box, and a screenshot that is not blank.
func TestReportInBrowser(t *testing.T) {
	browser := needBrowser(t)
	lab, _ := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	page := filepath.Join(t.TempDir(), "report.html")
	if code, stdout, stderr := runCLI("report", "--out", page, lab); code != 0 {
		t.Fatalf("ttftlab report exited %d:\n%s%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	charts := strings.Count(string(html), `<svg class="chart"`)
	if charts < 8 {
		t.Fatalf("the lab's report has %d charts, want at least 8", charts)
	}
	for _, scheme := range []string{"light", "dark"} {
		s := showPage(t, browser, page, scheme, true)
		for _, p := range s.problems {
			t.Errorf("%s: browser reported: %s", scheme, p)
		}
		if len(s.boxes) != charts {
			t.Errorf("%s: the browser laid out %d charts of %d", scheme, len(s.boxes), charts)
		}
		if s.first != "answer" {
			t.Errorf("%s: the page opens with %q, not the headline strip", scheme, s.first)
		}
		for _, o := range s.overflow {
			t.Errorf("%s: a box overflows: %s", scheme, o)
		}
		for i, b := range s.boxes {
			if b[0] < 100 || b[1] < 50 {
				t.Errorf("%s: chart %d has a %gx%g box", scheme, i+1, b[0], b[1])
			}
		}
		if s.loaded != 0 {
			t.Errorf("%s: the page loaded %d resources; it must need none", scheme, s.loaded)
		}
		if dark := s.bg != "rgb(255, 255, 255)"; dark != (scheme == "dark") {
			t.Errorf("%s: body background %s", scheme, s.bg)
		}
		checkScreenshot(t, scheme, s.png)
	}
}

// TestReportPagesInBrowser renders the page of a real load run of voice
// calls (two levels, two turns each), the report tests' load run, an A/B
// comparison of two lab runs, a folder of repeated lab runs and the
// verdicts of two folders of repeated load runs in headless Chromium,
// light and dark: the
// headline strip comes first, no box is wider than its room (no sideways
// scroll bar, no cut column), every chart has a box; the real run's page
// has its turn-by-turn section and its levels one after the other on the
// server chart, though server.jsonl's t_ms restarts with each level.
func TestReportPagesInBrowser(t *testing.T) {
	browser := needBrowser(t)
	lab, load := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	srv := startLlama(t)
	real := t.TempDir()
	// --think 500ms: the default 2 s between turns made half this test's
	// time; each level still spans several of the server's samples.
	code, stdout, stderr := runCLI("load", "--server", srv.URL, "--concurrency", "1,2", "--requests", "3", "--turns", "2",
		"--think", "500ms", "--docs", "1", "--slo", "ttft_ms<=400@p95", "--out", real)
	if code != 0 {
		t.Fatalf("ttftlab load exited %d:\n%s%s", code, stdout, stderr)
	}
	labs, loads := repeatedRuns(t, lab), repeatedRuns(t, load)
	for _, c := range []struct {
		name string
		dirs []string
	}{
		{"real-load", []string{real}},
		{"load", []string{load}},
		{"compare", []string{lab, lab}},
		{"lab-runs", []string{labs}},
		{"compare-load-runs", []string{loads, loads}},
	} {
		page := filepath.Join(t.TempDir(), c.name+".html")
		code, stdout, stderr := runCLI(append([]string{"report", "--out", page}, c.dirs...)...)
		if code != 0 {
			t.Fatalf("%s: ttftlab report exited %d:\n%s%s", c.name, code, stdout, stderr)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		charts := strings.Count(string(html), `<svg class="chart"`)
		if c.name == "real-load" {
			if !strings.Contains(string(html), `<section id="turns">`) {
				t.Errorf("real load: no turn-by-turn section")
			}
			one, two := strings.Index(string(html), ">level 1</text>"), strings.Index(string(html), ">level 2</text>")
			// The server chart comes before the turn chart, whose legend
			// names the levels too.
			server := string(html)[strings.Index(string(html), `aria-label="The server:`):]
			server = server[:strings.Index(server, "</svg>")]
			x := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>level ([12])</text>`).FindAllStringSubmatch(server, -1)
			if one < 0 || two < 0 || len(x) != 2 {
				t.Errorf("real load: the server chart does not name both levels' bands: %v", x)
			} else if x1, _ := strconv.ParseFloat(x[0][1], 64); func() bool { x2, _ := strconv.ParseFloat(x[1][1], 64); return x2 <= x1+10 }() {
				t.Errorf("real load: level 2's band (x %s) does not follow level 1's (x %s)", x[1][1], x[0][1])
			}
		}
		for _, scheme := range []string{"light", "dark"} {
			s := showPage(t, browser, page, scheme, false)
			for _, p := range s.problems {
				t.Errorf("%s %s: browser reported: %s", c.name, scheme, p)
			}
			if s.first != "answer" {
				t.Errorf("%s %s: the page opens with %q, not the headline strip", c.name, scheme, s.first)
			}
			for _, o := range s.overflow {
				t.Errorf("%s %s: a box overflows: %s", c.name, scheme, o)
			}
			if len(s.boxes) != charts || charts < 4 {
				t.Errorf("%s %s: the browser laid out %d charts of %d", c.name, scheme, len(s.boxes), charts)
			}
			if s.loaded != 0 {
				t.Errorf("%s %s: the page loaded %d resources", c.name, scheme, s.loaded)
			}
		}
	}
}

// showPage opens page in a new tab of the tests' Chromium (browserTab)
// with the given prefers-color-scheme and closes the tab before it
// returns; with screenshot, shown.png is a screenshot of the whole page
// (seconds of work for a long page, so only when asked).
func showPage(t *testing.T, browser, page, scheme string, screenshot bool) shown {
	t.Helper()
	ctx, closeTab := browserTab(t, browser)
	defer closeTab()

	var s shown
	var mu sync.Mutex
	listen, stopListen := context.WithCancel(ctx)
	done := make(chan struct{})
	messages := chromedp.Console(listen)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				s.problems = append(s.problems, m.String())
				mu.Unlock()
			}
		}
	}()
	timed, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := chromedp.Do(timed,
		call(log.Enable, cdp.Empty{}),
		call(emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}),
		chromedp.Navigate("file://"+page),
	)
	if err == nil {
		s.boxes, err = chromedp.Run(timed, chromedp.Evaluate[[][2]float64](
			`[...document.querySelectorAll("svg.chart")].map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })`))
	}
	if err == nil {
		s.loaded, err = chromedp.Run(timed, chromedp.Evaluate[int](`performance.getEntriesByType("resource").length`))
	}
	if err == nil {
		s.bg, err = chromedp.Run(timed, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
	}
	if err == nil {
		s.first, err = chromedp.Run(timed, chromedp.Evaluate[string](`(document.querySelector("main > *") || {}).id || ""`))
	}
	if err == nil {
		s.overflow, err = chromedp.Run(timed, chromedp.Evaluate[[]string](
			`[document.documentElement, ...document.querySelectorAll("figure .numbers, .tables, .headline dl, figure .plot, .scroll")]
			  .filter(e => e.scrollWidth > e.clientWidth + 1 && !e.closest("details:not([open])"))
			  .map(e => (e.className || e.tagName) + " " + e.scrollWidth + ">" + e.clientWidth)`))
	}
	if err == nil && screenshot {
		s.png, err = chromedp.Run(timed, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Fatalf("rendering %s in Chromium (%s): %v", page, scheme, err)
	}
	stopListen()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return s
}

// call is an action that sends one protocol command and ignores its
// answer.
func call[P, R any](c cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, c, params)
		return chromedp.Void{}, err
	}
}

// checkScreenshot saves the screenshot in the test's folder (and in
// $TTFTLAB_SCREENSHOTS when set, to look at) and fails on a blank one: a
// page of charts has many colours and much ink.
func checkScreenshot(t *testing.T, scheme string, data []byte) {
	t.Helper()
	name := "report-" + scheme + ".png"
	for _, dir := range []string{t.TempDir(), os.Getenv("TTFTLAB_SCREENSHOTS")} {
		if dir != "" {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s screenshot: %v", scheme, err)
	}
	colours, ink := inkOf(img)
	b := img.Bounds()
	t.Logf("%s screenshot: %dx%d, %d colours, %.1f%% ink", scheme, b.Dx(), b.Dy(), colours, 100*ink)
	if b.Dy() < 2000 || colours < 64 || ink < 0.02 {
		t.Errorf("%s screenshot looks blank: %dx%d, %d colours, %.1f%% of pixels unlike the background", scheme, b.Dx(), b.Dy(), colours, 100*ink)
	}
}

// inkOf counts the distinct colours of img and the share of pixels that
// differ from its top-left pixel (the page's background).
func inkOf(img image.Image) (colours int, ink float64) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgG, bb, _ := bg.RGBA()
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			if r != br || g != bgG || bl != bb {
				differ++
			}
		}
	}
	return len(seen), float64(differ) / float64(b.Dx()*b.Dy())
}

// repeatedRuns is a folder of repeated runs, as --runs writes it: run-1
// and run-2, each a copy of the run folder from.
func repeatedRuns(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"run-1", "run-2"} {
		if err := os.Mkdir(filepath.Join(dir, run), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, run, e.Name()), data, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestReportOnAPhone renders a lab page, a load page and a comparison at
// 390 px wide in headless Chromium: the page itself never scrolls
// sideways, every table sits in a box of its own that does (no column
// cut), no cell breaks a word in the middle, and no chart's text is drawn
// smaller than 8 px. Fails before this change: the tables ran off the
// page, cells broke words anywhere, chart labels were about 4 px high.
func TestReportOnAPhone(t *testing.T) {
	browser := needBrowser(t)
	lab, load := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	for _, c := range []struct {
		name string
		dirs []string
	}{{"lab", []string{lab}}, {"load", []string{load}}, {"compare", []string{lab, lab}}} {
		page := filepath.Join(t.TempDir(), c.name+".html")
		if code, stdout, stderr := runCLI(append([]string{"report", "--out", page}, c.dirs...)...); code != 0 {
			t.Fatalf("%s: ttftlab report exited %d:\n%s%s", c.name, code, stdout, stderr)
		}
		var got struct {
			Page   [2]float64 `json:"page"`
			Cut    []string   `json:"cut"`
			Breaks []string   `json:"breaks"`
			Small  []string   `json:"small"`
			Tables int        `json:"tables"`
			Charts int        `json:"charts"`
			Texts  int        `json:"texts"`
		}
		evalOnPhone(t, browser, page, `(() => {
			const out = {page: [document.documentElement.scrollWidth, document.documentElement.clientWidth], cut: [], breaks: [], small: [], tables: 0, charts: 0, texts: 0};
			for (const t of document.querySelectorAll("main table")) {
				out.tables++;
				let box = t.parentElement, ok = false;
				for (; box && box !== document.body; box = box.parentElement) {
					const o = getComputedStyle(box).overflowX;
					if (o === "auto" || o === "scroll") { ok = true; break; }
				}
				if (!ok && t.getBoundingClientRect().right > document.documentElement.clientWidth + 1) out.cut.push((t.caption || {}).textContent || t.textContent.slice(0, 60));
			}
			for (const td of document.querySelectorAll("td, th")) {
				const s = getComputedStyle(td);
				if (s.overflowWrap === "anywhere" || s.wordBreak === "break-all") { out.breaks.push(td.textContent.slice(0, 40)); }
			}
			for (const svg of document.querySelectorAll("svg.chart")) {
				out.charts++;
				for (const tx of svg.querySelectorAll("text")) {
					if (!tx.textContent.trim()) continue;
					out.texts++;
					const h = tx.getBoundingClientRect().height;
					if (h < 8) { out.small.push(tx.textContent.slice(0, 30) + " " + h.toFixed(1) + "px"); }
				}
			}
			out.breaks = out.breaks.slice(0, 5); out.small = out.small.slice(0, 5);
			return out;
		})()`, &got)
		if got.Page[0] > got.Page[1]+1 {
			t.Errorf("%s: the page scrolls sideways: %v wide in %v", c.name, got.Page[0], got.Page[1])
		}
		if got.Tables == 0 || got.Charts == 0 || got.Texts == 0 {
			t.Errorf("%s: %d tables, %d charts, %d chart texts laid out", c.name, got.Tables, got.Charts, got.Texts)
		}
		for _, s := range got.Cut {
			t.Errorf("%s: a table runs off the page with no box to scroll: %s", c.name, s)
		}
		for _, s := range got.Breaks {
			t.Errorf("%s: a cell may break a word anywhere: %q", c.name, s)
		}
		for _, s := range got.Small {
			t.Errorf("%s: chart text too small to read: %s", c.name, s)
		}
	}
}

// evalOnPhone opens page in a new tab of the tests' Chromium, its
// viewport a phone's, 390 px wide, and decodes what script evaluates to
// into out.
func evalOnPhone(t *testing.T, browser, page, script string, out any) {
	t.Helper()
	ctx, closeTab := browserTab(t, browser)
	defer closeTab()
	timed, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	err := chromedp.Do(timed,
		call(emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 900, DeviceScaleFactor: 1, Mobile: true}),
		chromedp.Navigate("file://"+page))
	if err != nil {
		t.Fatalf("rendering %s in Chromium: %v", page, err)
	}
	raw, err := chromedp.Run(timed, chromedp.Evaluate[json.RawMessage](script))
	if err != nil {
		t.Fatalf("evaluating on %s: %v", page, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
