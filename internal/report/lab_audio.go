package report

import (
	"fmt"
	"strconv"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// audioSection: the audio step, when the caller first hears the answer:
// the first run's answer with each sentence's speech request and audio
// under it, and every run (--repeat).
func audioSection(a *rundir.Audio) section {
	sec := sectionOf("audio", "Time to first audio",
		"Each sentence goes to the speech server the moment it is complete; a speaker plays the audio in order, and waits where the next sentence's audio has not come. "+
			"The caller hears nothing until the first audio: that wait, against the first token and the first sentence.",
		func() (figure, error) { return audioFigure(a, 0) },
		func() (figure, error) { return audioFigure(a, 1.3*a.Runs[0].FirstAudioMs) })
	// One row a figure, one column a run: narrow enough for half a
	// comparison page.
	head := []string{"figure"}
	for i := range a.Runs {
		head = append(head, "run "+strconv.Itoa(i+1))
	}
	runs := table{Caption: "the runs", Head: append(head, "p50")}
	for _, row := range []struct {
		name string
		v    func(r artifact.AudioRun) float64
		p50  string
	}{
		{"ttft_ms", func(r artifact.AudioRun) float64 { return r.TTFTMs }, num(a.TTFTP50)},
		{"first_sentence_ms", func(r artifact.AudioRun) float64 { return r.FirstSentenceMs }, num(a.FirstSentenceP50)},
		{"tts_sent_ms", func(r artifact.AudioRun) float64 { return r.TTSSentMs }, ""},
		{"first_audio_ms", func(r artifact.AudioRun) float64 { return r.FirstAudioMs }, num(a.FirstAudioP50)},
		{"tts_first_audio_ms", func(r artifact.AudioRun) float64 { return r.TTSFirstAudioMs }, num(a.TTSFirstAudioP50)},
		{"audio_ms", func(r artifact.AudioRun) float64 { return r.AudioMs }, ""},
		{"underrun_ms", func(r artifact.AudioRun) float64 { return r.UnderrunMs }, num(a.UnderrunP50)},
		{"underruns", func(r artifact.AudioRun) float64 { return r.Underruns }, ""},
		{"overhead_ms", func(r artifact.AudioRun) float64 { return r.OverheadMs }, ""},
	} {
		cells := []string{row.name}
		for _, r := range a.Runs {
			cells = append(cells, num(row.v(r)))
		}
		runs.add(append(cells, row.p50)...)
	}
	sec.Tables = append(sec.Tables, runs.numericFrom(1).folded(true))
	engine := a.TTS.Engine
	if engine == "" {
		engine = a.TTS.URL
	} else {
		engine += " (a formant synthesizer: its timings are not a neural voice's)"
	}
	sec.Quotes = append(sec.Quotes, quote{"speech server", fmt.Sprintf("%s, %s, model %s, %s", engine, a.TTS.Source, a.TTS.Model, a.TTS.Format)},
		quote{"the speech side's share of the wait", fmt.Sprintf("%.0f %% of the first audio's p50 comes after the first sentence was complete", 100*a.TTSShare)})
	return sec
}

// audioFigure draws the first run: the answer as it streamed, each
// sentence ready and its speech request from sent to last byte, and the
// audio as a speaker plays it, silences marked. upTo > 0 draws only the
// start, to that time: the wait for the first audio, which the whole
// answer's spoken length dwarfs.
func audioFigure(a *rundir.Audio, upTo float64) (figure, error) {
	rows := []string{"answer", "sentences ready", "speech requests", "heard"}
	title := "Time to first audio: the answer spoken sentence by sentence (run 1)"
	if upTo > 0 {
		title = "Time to first audio: the wait, up to the first audio (run 1)"
	}
	p, h := timeline(title, rows, 8)
	r := a.Runs[0]
	// in keeps what starts before upTo, cut there.
	in := func(sp []chart.Span) []chart.Span {
		if upTo <= 0 {
			return sp
		}
		var out []chart.Span
		for _, x := range sp {
			if x.From < upTo {
				x.To = min(x.To, upTo)
				out = append(out, x)
			}
		}
		return out
	}
	before := func(ts []float64) []float64 {
		if upTo <= 0 {
			return ts
		}
		var out []float64
		for _, t := range ts {
			if t <= upTo {
				out = append(out, t)
			}
		}
		return out
	}
	if n := len(a.Chunks); n > 0 {
		chart.AddSpans(p, "streaming (ttft to end)", in([]chart.Span{{Row: 0, From: a.Chunks[0].TMs, To: a.Chunks[n-1].TMs}}), chart.Cached, 10)
		chart.AddTicks(p, "chunk", chunkTicks(0, before(chunkTimes(a.Chunks))), chart.Chunk, 14, 1)
	}
	var ready []float64
	var requests, heard, silent []chart.Span
	tab := table{Head: []string{"sentence", "ready_ms", "tts_sent_ms", "first_audio_ms", "plays"}}
	for i, s := range a.Spoken {
		ready = append(ready, s.ReadyMs)
		requests = append(requests, chart.Span{Row: 2, From: s.TTSSentMs, To: s.AudioDoneMs})
		heard = append(heard, chart.Span{Row: 3, From: s.StartMs, To: s.EndMs})
		if i > 0 && s.StartMs > a.Spoken[i-1].EndMs {
			silent = append(silent, chart.Span{Row: 3, From: a.Spoken[i-1].EndMs, To: s.StartMs})
		}
		tab.add(strconv.Itoa(i+1), num(s.ReadyMs), num(s.TTSSentMs), num(s.FirstAudioMs), num(s.StartMs)+"–"+num(s.EndMs))
	}
	chart.AddTicks(p, "sentence ready", chunkTicks(1, before(ready)), chart.FirstSentence, 14, 2)
	chart.AddSpans(p, "speech request (sent to last byte)", in(requests), chart.Queue, 8)
	chart.AddSpans(p, "audio heard", in(heard), chart.Spoken, 14)
	if silent = in(silent); len(silent) > 0 {
		chart.AddSpans(p, "silence (underrun)", silent, chart.Stall, 14)
	}
	chart.AddRule(p, "ttft", r.TTFTMs, true, chart.TTFT, true)
	chart.AddRule(p, "first sentence", r.FirstSentenceMs, true, chart.FirstSentence, true)
	chart.AddRule(p, "first audio", r.FirstAudioMs, true, chart.Idle, false)
	if upTo > 0 {
		p.X.Max = upTo
		tab = table{Head: []string{"moment", "t_ms"}}
		tab.add("first token (ttft_ms)", num(r.TTFTMs))
		tab.add("first sentence complete (first_sentence_ms)", num(r.FirstSentenceMs))
		tab.add("its speech request sent (tts_sent_ms)", num(r.TTSSentMs))
		tab.add("first audio (first_audio_ms)", num(r.FirstAudioMs))
	}
	return draw(p, h, *tab.numericFrom(1))
}
