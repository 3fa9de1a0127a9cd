package runtime

import (
	"encoding/json"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// summary is stream_many's second result, over the results that are not
// warm-up: artifact.ManySummary as a Lua table (what load.json holds).
// Each distribution is over the requests that have its figure and says
// so (n, over); with n = 0 its percentiles are json_null. Failures are
// counted by kind with one message each.
func (m *many) summary() *lua.LTable {
	s := m.summaryRecord()
	data, err := json.Marshal(s)
	if err != nil {
		m.L.RaiseError("stream_many: summary: %v", err)
	}
	v, err := m.vm.json.Decode(m.L, data)
	if err != nil {
		m.L.RaiseError("stream_many: summary: %v", err)
	}
	return v.(*lua.LTable)
}

// summaryRecord computes the summary. A figure a request does not have
// (NaN) is left out of that figure's distribution: ttft_ms over requests
// with a first token, first_sentence_ms over those with a complete
// sentence, total_ms and stall_ms over those that ended without an error,
// gap_ms over every gap between two chunks, queue_ms over every request.
func (m *many) summaryRecord() artifact.ManySummary {
	var ttft, first, total, gaps, queue, stall, audio, under []float64
	spoke := false
	var failures []artifact.Failure
	s := artifact.ManySummary{}
	tokens := 0.0
	for _, f := range m.done {
		if f.warmup {
			s.Warmup++
			continue
		}
		s.Requests++
		if f.ok {
			s.OK++
			total = append(total, f.totalMs)
		} else {
			s.Failed++
			failures = append(failures, artifact.Failure{Kind: f.kind, Status: f.status, N: 1, Example: f.message})
		}
		if f.cut {
			s.Cut++
		}
		ttft = append(ttft, f.ttftMs)
		first = append(first, f.firstSentenceMs)
		queue = append(queue, f.queueMs)
		stall = append(stall, f.stallMs)
		if f.spoken != nil {
			spoke = true
			audio, under = append(audio, f.firstAudioMs), append(under, f.underrunMs)
		}
		gaps = append(gaps, f.gapsMs...)
		if f.predictedN == f.predictedN { // not NaN
			tokens += f.predictedN
		} else {
			tokens += float64(f.chunks)
		}
	}
	s.Failures = artifact.CountFailures(failures)
	s.DurationMs = *artifact.Ms(msOf(m.elapsed))
	s.StartedUnixMs = artifact.Num(unixMs(m.begin))
	s.Client = clientUse(m.use0, m.use1, m.elapsed)
	if secs := m.elapsed.Seconds(); secs > 0 {
		s.RequestsPerS = artifact.Num(float64(s.OK) / secs)
		s.TokensPerS = artifact.Num(tokens / secs)
	}
	s.TTFTMs = load.Summarize(ttft).Record(artifact.OverTTFT)
	s.FirstSentenceMs = load.Summarize(first).Record(artifact.OverFirstSentence)
	s.TotalMs = load.Summarize(total).Record(artifact.OverTotal)
	s.GapMs = load.Summarize(gaps).Record(artifact.OverGap)
	s.QueueMs = load.Summarize(queue).Record(artifact.OverQueue)
	s.StallMs = load.Summarize(stall).Record(artifact.OverStall)
	if spoke {
		a, u := load.Summarize(audio).Record(artifact.OverFirstAudio), load.Summarize(under).Record(artifact.OverUnderrun)
		s.FirstAudioMs, s.UnderrunMs = &a, &u
	}
	return s
}
