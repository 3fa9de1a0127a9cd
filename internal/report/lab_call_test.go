package report

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/chart"
)

// The call step's section draws a waterfall for each turn of the first
// run, every part a bar, gives mouth to ear's median with its interval,
// and warns where a transcript was garbled.
func TestCallSectionWaterfalls(t *testing.T) {
	call, err := os.ReadFile("testdata/call.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, file string
		warns      bool
	}{
		{"a garbled transcript", string(call), true},
		{"every transcript heard", strings.Replace(strings.Replace(string(call), `"transcript":"the bee need a point","wer":0.8`,
			`"transcript":"do i need an appointment","wer":0`, 1), `"wer_max":0.8`, `"wer_max":0`, 1), false},
	} {
		dir := copyDir(t, labRun(t))
		if err := os.WriteFile(filepath.Join(dir, "call.json"), []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		page := render(t, dir)
		all := charts(t, page)
		// Turn 1 says when the server heard the speech end: every part
		// is a bar. Turn 2, an upload, does not: no endpointing bar.
		for title, bars := range map[string]int{
			"Turn 1: When is the clinic open on Saturday? (run 1)": 8,
			"Turn 2: Do I need an appointment? (run 1)":            7,
		} {
			svg := chartOf(t, all, title)
			// Each colour once a bar, once more for its legend entry; the
			// two hand-offs share one colour and one legend entry.
			for _, col := range []struct {
				name string
				c    color.RGBA
				n    int
			}{{"speaking", chart.Spoken, 2}, {"LLM first token", chart.TTFT, 2}, {"first sentence", chart.FirstSentence, 2},
				{"first audio", chart.Total, 2}, {"hand-offs", chart.Queue, 3}} {
				if got := marks(svg, "fill", col.c); got != col.n {
					t.Errorf("%s: %s: %d %s bars with the legend's, want %d", c.name, title, got, col.name, col.n)
				}
			}
			if got, want := marks(svg, "fill", chart.Stall) > 0, bars == 8; got != want {
				t.Errorf("%s: %s: an endpointing bar %v, want %v", c.name, title, got, want)
			}
		}
		if !strings.Contains(page, "mouth to ear, median over every turn (95 % interval)") || !strings.Contains(page, "700.5 ms over 4 turns (too few samples for its interval: it needs 6)") {
			t.Errorf("%s: no median of mouth to ear with its interval", c.name)
		}
		warned := strings.Contains(page, `<p class="warning" role="alert"><strong>Warning:</strong> 1 of 4 transcripts are garbled`) &&
			strings.Contains(page, "those turns&#39; LLM timings are of a garbled question")
		if warned != c.warns {
			t.Errorf("%s: warned %v, want %v", c.name, warned, c.warns)
		}
		// check's warning is in its list too, counted.
		if listed := strings.Contains(page, `<tr class="WARN"><td>WARN</td><td>call transcripts</td>`) &&
			strings.Contains(page, ", 1 with a warning"); listed != c.warns {
			t.Errorf("%s: check's warning listed %v, want %v", c.name, listed, c.warns)
		}
	}
}
