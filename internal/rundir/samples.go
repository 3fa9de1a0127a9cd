package rundir

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
	"ttftlab/internal/load"
)

// Samples are the timed figures of a lab run, each with the values it was
// measured from, in a fixed order. A figure the run lacks (a step not run)
// is left out; so is a value that is not finite in the artifact.
func (l *Lab) Samples() []figures.Sample {
	var out []figures.Sample
	add := func(name, over string, vs ...float64) {
		if s, ok := finiteSample(name, over, vs); ok {
			out = append(out, s)
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
		var first, hit, changed []float64
		for _, r := range c.Repetitions() {
			first, hit = append(first, r.First.TTFTMs), append(hit, r.Second.TTFTMs)
			changed = append(changed, r.ChangedPrefix.TTFTMs)
		}
		add("cache first ttft_ms", "cache step, the long prompt cold", first...)
		add("cache hit ttft_ms", "cache step, the long prompt again", hit...)
		add("cache changed first line ttft_ms", "cache step, the first line changed", changed...)
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
	if c := l.Cancel; c != nil {
		var idle []float64
		for _, r := range c.Repetitions() {
			if r.SlotIdleAfterMs != nil {
				idle = append(idle, *r.SlotIdleAfterMs)
			}
		}
		add("cancel slot idle after close_ms", "cancel step runs, evidence "+c.Evidence, idle...)
	}
	if b := l.Bargein; b != nil {
		var resumed, cold []float64
		for _, r := range b.Repetitions() {
			resumed, cold = append(resumed, r.Resumed.TTFTMs), append(cold, r.Cold.TTFTMs)
		}
		add("bargein resumed ttft_ms", "bargein step runs, next turn cached", resumed...)
		add("bargein cold ttft_ms", "bargein step runs, next turn cache flushed", cold...)
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
	if c := l.Call; c != nil {
		// Every turn of every repetition: the call's questions differ, and
		// each is a caller's turn.
		var m2e, final []float64
		for _, r := range c.Repetitions() {
			for _, t := range r.Turns {
				m2e, final = append(m2e, t.Parts.MouthToEarMs), append(final, t.Parts.SttFinalMs)
			}
		}
		add("call mouth_to_ear_ms", "call step turns, the caller's speech end to the answer's first audio", m2e...)
		add("call stt_final_ms", "call step turns, the caller's speech end to the final transcript", final...)
	}
	out = append(out, l.RealtimeSamples()...)
	if p := l.Prefix; p != nil {
		// Each place's times over the repetitions, the places in the order
		// they first appear.
		var places []string
		ttft := map[string][]float64{}
		for _, r := range p.Repetitions() {
			for _, pos := range r.Positions {
				if _, seen := ttft[pos.Position]; !seen {
					places = append(places, pos.Position)
				}
				ttft[pos.Position] = append(ttft[pos.Position], pos.TTFTMs)
			}
		}
		for _, place := range places {
			add("prefix "+place+" ttft_ms", "prefix step, the changing line "+place, ttft[place]...)
		}
	}
	return out
}

// finiteSample is a figure in ms over the finite values of vs; false
// when there is none.
func finiteSample(name, over string, vs []float64) (figures.Sample, bool) {
	var keep []float64
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			keep = append(keep, v)
		}
	}
	return figures.Sample{Name: name, Unit: "ms", Over: over, Values: keep}, len(keep) > 0
}

// LoadMetrics are the per-request times a load run's figures are over.
var LoadMetrics = []string{"ttft_ms", "first_sentence_ms", "total_ms"}

// Samples are the timed figures of a load run: per level and metric the
// requests after warm-up and the level's transient (Transient), a failed
// request (or one without that time) as +Inf. Levels are in the order
// they ran.
func (l *Load) Samples() []figures.Sample {
	type key struct {
		level  float64
		metric string
	}
	vals := map[key][]float64{}
	var levels []float64
	seen := map[float64]bool{}
	spoke, listened := false, false
	for _, r := range l.Requests {
		spoke = spoke || r.FirstAudioMs != nil || r.UnderrunMs != nil
		listened = listened || r.Listened()
	}
	metrics := append([]string(nil), LoadMetrics...)
	if spoke {
		// Spoken (--tts): the caller's figures too.
		metrics = append(metrics, "first_audio_ms", "underrun_ms")
	}
	if listened {
		// The callers spoke (--stt): the whole turn's and the transcript's.
		metrics = append(metrics, "mouth_to_ear_ms", "stt_final_ms")
	}
	skip := l.Transient()
	for i, r := range l.Requests {
		if r.Warmup || skip[i] {
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

// Transient marks the rows (by their place in Requests) before their
// level's steady window, where the level's record left some out: the
// window found again from the level's rows by the rule that found it
// (load.SteadyWindow). A search's rows (a level's rounds together) and a
// merge's (whose order is the shards' wall clocks) are all kept.
func (l *Load) Transient() []bool {
	out := make([]bool, len(l.Requests))
	if l.Settings.SearchMax > 0 || l.Settings.Shards > 0 {
		return out
	}
	for _, lv := range l.Levels {
		if w := lv.SteadyWindow; w == nil || w.LeftOut == 0 {
			continue
		}
		var at []int
		var rows []artifact.LoadRequest
		for i, r := range l.Requests {
			if r.Level == lv.Level {
				at, rows = append(at, i), append(rows, r)
			}
		}
		_, cut := load.SteadyWindow(rows, nil)
		for k, c := range cut {
			out[at[k]] = c
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
