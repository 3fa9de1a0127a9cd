package rundir

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"ttftlab/internal/figures"
)

// Samples are the timed figures of a lab run, each with the values it was
// measured from, in a fixed order. A figure the run lacks (a step not run)
// is left out; so is a value that is not finite in the artifact.
func (l *Lab) Samples() []figures.Sample {
	var out []figures.Sample
	add := func(name, over string, vs ...float64) {
		var keep []float64
		for _, v := range vs {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				keep = append(keep, v)
			}
		}
		if len(keep) > 0 {
			out = append(out, figures.Sample{Name: name, Unit: "ms", Over: over, Values: keep})
		}
	}
	if l.TTFT != nil {
		var ttft, total []float64
		for _, r := range l.TTFT.Runs {
			ttft, total = append(ttft, r.TTFTMs), append(total, r.TotalMs)
		}
		add("ttft_ms", "ttft step runs, cache off", ttft...)
		add("total_ms", "ttft step runs, cache off", total...)
	}
	for _, r := range l.Prefill {
		d := strconv.FormatFloat(r.Docs, 'f', -1, 64)
		var ttft, prompt []float64
		for _, run := range r.Repetitions() {
			ttft = append(ttft, run.TTFTMs)
			if run.PromptMs != nil {
				prompt = append(prompt, *run.PromptMs)
			}
		}
		add("prefill "+d+" docs ttft_ms", "prefill step runs, "+d+" docs, cache off", ttft...)
		add("prefill "+d+" docs prompt_ms", "prefill step runs, "+d+" docs, the server's timings", prompt...)
	}
	if c := l.Cache; c != nil {
		add("cache first ttft_ms", "cache step, the long prompt cold", c.First.TTFTMs)
		add("cache hit ttft_ms", "cache step, the long prompt again", c.Second.TTFTMs)
		add("cache changed first line ttft_ms", "cache step, the first line changed", c.ChangedPrefix.TTFTMs)
	}
	if s := l.Sentence; s != nil {
		var first, stall []float64
		for _, r := range s.Repetitions() {
			first = append(first, r.FirstSentenceMs)
			if r.Pacing != nil {
				stall = append(stall, r.Pacing.StallMs)
			}
		}
		add("first_sentence_ms", "sentence step runs", first...)
		add("speech stall_ms", "sentence step runs, played back", stall...)
	}
	if c := l.Cancel; c != nil && c.SlotIdleAfterMs != nil {
		add("cancel slot idle after close_ms", "cancel step, evidence "+c.Evidence, *c.SlotIdleAfterMs)
	}
	if b := l.Bargein; b != nil {
		add("bargein resumed ttft_ms", "bargein step, next turn cached", b.Resumed.TTFTMs)
		add("bargein cold ttft_ms", "bargein step, next turn cache flushed", b.Cold.TTFTMs)
	}
	if a := l.Audio; a != nil && len(a.Runs) > 0 {
		var first, sent, tts, under []float64
		for _, r := range a.Runs {
			first, sent = append(first, r.FirstAudioMs), append(sent, r.FirstSentenceMs)
			tts, under = append(tts, r.TTSFirstAudioMs), append(under, r.UnderrunMs)
		}
		add("first_audio_ms", "audio step runs, the answer spoken sentence by sentence", first...)
		add("audio first_sentence_ms", "audio step runs", sent...)
		add("audio tts_first_audio_ms", "audio step runs, the speech server's own time to the first audio", tts...)
		add("audio underrun_ms", "audio step runs, silence while speaking", under...)
	}
	if p := l.Prefix; p != nil {
		for _, pos := range p.Positions {
			add("prefix "+pos.Position+" ttft_ms", "prefix step, the changing line "+pos.Position, pos.TTFTMs)
		}
	}
	return out
}

// LoadMetrics are the per-request times a load run's figures are over.
var LoadMetrics = []string{"ttft_ms", "first_sentence_ms", "total_ms"}

// Samples are the timed figures of a load run: per level and metric the
// requests after warm-up, a failed request (or one without that time) as
// +Inf. Levels are in the order they ran.
func (l *Load) Samples() []figures.Sample {
	type key struct {
		level  float64
		metric string
	}
	vals := map[key][]float64{}
	var levels []float64
	seen := map[float64]bool{}
	metrics := LoadMetrics
	for _, r := range l.Requests {
		if r.FirstAudioMs != nil || r.UnderrunMs != nil {
			// Spoken (--tts): the caller's figures too.
			metrics = append(append([]string(nil), LoadMetrics...), "first_audio_ms", "underrun_ms")
			break
		}
	}
	for _, r := range l.Requests {
		if r.Warmup {
			continue
		}
		if !seen[r.Level] {
			seen[r.Level] = true
			levels = append(levels, r.Level)
		}
		failed := r.ErrorKind != nil
		for _, m := range metrics {
			p := r.Metric(m)
			v := math.Inf(1)
			if !failed && p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) {
				v = *p
			}
			k := key{r.Level, m}
			vals[k] = append(vals[k], v)
		}
	}
	var out []figures.Sample
	for _, lv := range levels {
		name := strconv.FormatFloat(lv, 'f', -1, 64)
		for _, m := range metrics {
			out = append(out, figures.Sample{Name: "level " + name + " " + m, Unit: "ms",
				Over: "requests of level " + name + " after warm-up, failed ones above every time", Values: vals[key{lv, m}]})
		}
	}
	return out
}

// RunPrefix names the folders of a run repeated with --runs: OUT/run-1,
// OUT/run-2, ... each a whole run folder of its own.
const RunPrefix = "run-"

// RunDirs are the folders of the repeated runs in dir (dir/run-1 ...
// dir/run-N, in order of their number), or nil when dir holds a single
// run. A gap in the numbers is an error: a run is missing.
func RunDirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), RunPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || strconv.Itoa(n) != rest {
			continue
		}
		nums = append(nums, n)
	}
	sort.Ints(nums)
	var out []string
	for i, n := range nums {
		if n != i+1 {
			return nil, fmt.Errorf("%s has %s%d but no %s%d: a repeated run is missing", dir, RunPrefix, n, RunPrefix, i+1)
		}
		out = append(out, filepath.Join(dir, RunPrefix+strconv.Itoa(n)))
	}
	return out, nil
}
