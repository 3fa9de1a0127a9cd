package report

import (
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// realtimeRecord is a realtime step's file as the lab writes it: two
// sessions; the first's turn 1 barged into by turn 2, the server sending
// afterCancel ms of audio after the cancel; the second dropped in its
// turn 2, which has the stamps it got.
func realtimeRecord(afterCancel float64) artifact.Realtime {
	f := fp
	lastAudio := 120.0
	if afterCancel == 0 {
		lastAudio = 0
	}
	dropped, msg := "realtime_dropped", "the socket closed mid-session"
	return artifact.Realtime{Step: "realtime", Server: "ws://127.0.0.1:8765/v1/realtime", Dialect: "beta", Rate: 24000,
		Sessions: []artifact.RealtimeSession{
			{Turns: []artifact.RealtimeTurn{
				{Turn: 1, Said: "When is the clinic open?", AudioMs: 1500, SpeechEndMs: 1400, SpeechStartedMs: f(300), ServerAudioStartMs: f(280),
					SpeechStoppedMs: f(1650), ServerAudioEndMs: f(1420), FirstTranscriptMs: f(2000), FirstAudioMs: f(2100), MouthToEarMs: f(700),
					AnswerAudioMs: 3000, UnderrunMs: f(0), DoneMs: f(3010), Status: "cancelled",
					BargeOnsetMs: f(2600), OnsetToSpeechStartedMs: f(250), CancelMs: f(2850), CancelOn: "speech_started", PlayedMs: f(750),
					CancelToLastAudioMs: f(lastAudio), AudioAfterCancelMs: f(afterCancel),
					Events: []artifact.RealtimeEvent{{Type: "input_audio_buffer.speech_started", AtMs: 300}, {Type: "input_audio_buffer.speech_stopped", AtMs: 1650},
						{Type: "response.audio.delta", AtMs: 2100}, {Type: "response.cancel", AtMs: 2850, Sent: true}, {Type: "response.done", AtMs: 3010}}},
				{Turn: 2, Said: "Do I need an appointment?", AudioMs: 1200, SpeechEndMs: 1100, SpeechStartedMs: f(250), SpeechStoppedMs: f(1300),
					ServerAudioEndMs: f(1120), FirstTextMs: f(1800), FirstAudioMs: f(1900), MouthToEarMs: f(800), AnswerAudioMs: 2000, UnderrunMs: f(40),
					DoneMs: f(4000), Status: "completed"},
				{Turn: 3, AudioMs: 1000, SpeechEndMs: 950, SpeechStoppedMs: f(1200), FirstAudioMs: f(1600), MouthToEarMs: f(650),
					AnswerAudioMs: 1500, UnderrunMs: f(0), DoneMs: f(3200), Status: "completed"},
			}},
			{Turns: []artifact.RealtimeTurn{
				{Turn: 1, AudioMs: 1000, SpeechEndMs: 900, SpeechStoppedMs: f(1150), FirstAudioMs: f(1500), MouthToEarMs: f(600),
					AnswerAudioMs: 1000, UnderrunMs: f(0), DoneMs: f(2600), Status: "completed"},
				{Turn: 2, AudioMs: 1000, SpeechEndMs: 900, SpeechStoppedMs: f(1100), FirstAudioMs: f(1400), MouthToEarMs: f(500), AnswerAudioMs: 100},
			}, ErrorKind: &dropped, Error: &msg},
		}}
}

// realtimeLab is a lab folder holding steps.json and, unless rt is nil,
// realtime.json.
func realtimeLab(t *testing.T, rt *artifact.Realtime) string {
	t.Helper()
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "steps.json"), artifact.Steps{Steps: []artifact.Step{{Name: "realtime", Status: "ok", Artifacts: []string{"realtime.json"}}}})
	if rt != nil {
		writeJSON(t, filepath.Join(dir, "realtime.json"), rt)
	}
	return dir
}

// median is the middle value of vs, or the mean of the two middle ones.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestRealtimeSection: the realtime step's section has the figures over
// every turn that ended with n, their medians and intervals, a timeline
// per session with one row per turn and its marks, the audio after the
// cancel its own span labelled with its ms, a finding exactly when audio
// came after the cancel, the dialect, rate and server, and the failed
// session with its kind; a folder without realtime.json has no section.
func TestRealtimeSection(t *testing.T) {
	rec := realtimeRecord(400)
	dir := realtimeLab(t, &rec)
	page, drawn := plots(t, dir)
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{`<section id="realtime">`, "<h2>Realtime session</h2>", "ws://127.0.0.1:8765/v1/realtime",
		"beta (the beta event names: response.audio.delta)", "PCM16 mono at 24000 Hz both ways",
		"sessions: 2; turns: 5; barge-ins: 1; failed: 1 (realtime_dropped)",
		`<tr class="bad"><td>2</td><td class="num">2</td><td>realtime_dropped</td><td>the socket closed mid-session</td></tr>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	finding := `<p class="finding"><strong>Finding:</strong> session 1, turn 1: the server kept sending 400 ms of audio after the cancel (its last audio delta 120 ms after response.cancel)`
	if n := strings.Count(page, `<p class="finding">`); n != 1 || !strings.Contains(page, finding) {
		t.Errorf("%d findings, want the one of the audio after the cancel", n)
	}

	// The figures: over the turns that ended (session 2's turn 2, which
	// failed, left out), the barge-in's over the one barge-in.
	var ended []artifact.RealtimeTurn
	for i, s := range rec.Sessions {
		for k, turn := range s.Turns {
			if i == 1 && k == 1 {
				continue
			}
			ended = append(ended, turn)
		}
	}
	var m2e, endp, first, answer []float64
	for _, turn := range ended {
		m2e, first, answer = append(m2e, *turn.MouthToEarMs), append(first, *turn.FirstAudioMs), append(answer, turn.AnswerAudioMs)
		endp = append(endp, *turn.SpeechStoppedMs-turn.SpeechEndMs)
	}
	sec := realtimeSection(rundir.ReadLab(dir, ""))
	figs := sec.Tables[0]
	for _, c := range []struct {
		name string
		n    int
		p50  float64
	}{
		{"mouth_to_ear_ms (ms)", len(m2e), median(m2e)}, {"endpointing_ms (ms)", len(endp), median(endp)},
		{"first_audio_ms (ms)", len(first), median(first)}, {"answer_audio_ms (ms)", len(answer), median(answer)},
		{"underrun_ms (ms)", 4, 0}, {"barge-in onset_to_speech_started_ms (ms)", 1, 250},
		{"barge-in cancel_to_last_audio_ms (ms)", 1, 120}, {"barge-in audio_after_cancel_ms (ms)", 1, 400},
	} {
		row := cells(t, figs, c.name)
		if row[1] != num(float64(c.n)) || row[2] != num(c.p50) {
			t.Errorf("%s: n %s, p50 %s; want %d, %s", c.name, row[1], row[2], c.n, num(c.p50))
		}
		// Four samples bound no median; a mean of several has its interval.
		if row[3] != tooFew || (c.n > 1 && !strings.HasPrefix(row[7], "[")) || row[8] == "" {
			t.Errorf("%s: median's interval %q, mean's %q, over %q", c.name, row[3], row[7], row[8])
		}
	}
	if len(figs.Rows) != 8 {
		t.Errorf("%d figures, want 8", len(figs.Rows))
	}
	if !strings.Contains(page, "<td>mouth_to_ear_ms (ms)</td><td class=\"num\">4</td><td class=\"num\">"+num(median(m2e))+"</td>") {
		t.Errorf("the page's table lacks mouth to ear's median")
	}
	// The figures are among the run's, in the table of every figure.
	if !strings.Contains(page, "<td>realtime mouth_to_ear_ms (ms)</td>") {
		t.Errorf("the table of every figure lacks the realtime step's")
	}

	// One timeline per session, one row per turn, each mark once a turn
	// that has it and once in the legend.
	all := charts(t, page)
	for i, s := range rec.Sessions {
		title := "Realtime session " + num(float64(i+1)) + ": each turn on its own clock"
		svg := chartOf(t, all, title)
		p := drawn[title]
		rows := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
		var names []string
		for _, r := range rows {
			names = append(names, r.Label)
		}
		want := []string{"turn 1", "turn 2, barged in", "turn 3"}
		if i == 1 {
			want = []string{"turn 1", "turn 2, failed"}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: rows %q, want %q", title, names, want)
		}
		count := func(of func(artifact.RealtimeTurn) bool) int {
			n := 0
			for _, turn := range s.Turns {
				if of(turn) {
					n++
				}
			}
			if n > 0 {
				n++ // the legend's
			}
			return n
		}
		// An event's tick each, and the legend's.
		events := func(sent bool) int {
			n := 0
			for _, turn := range s.Turns {
				for _, e := range turn.Events {
					if e.Sent == sent {
						n++
					}
				}
			}
			if n > 0 {
				n++
			}
			return n
		}
		for _, m := range []struct {
			name, prop string
			c          color.RGBA
			n          int
		}{
			{"caller's audio", "fill", chart.Spoken, count(func(artifact.RealtimeTurn) bool { return true })},
			{"speech end", "stroke", chart.Chunk, count(func(artifact.RealtimeTurn) bool { return true })},
			{"speech_started", "stroke", chart.Began, count(func(x artifact.RealtimeTurn) bool { return x.SpeechStartedMs != nil })},
			{"speech_stopped", "stroke", chart.P50, count(func(x artifact.RealtimeTurn) bool { return x.SpeechStoppedMs != nil })},
			{"audio_end_ms", "stroke", chart.Evaluated, count(func(x artifact.RealtimeTurn) bool { return x.ServerAudioEndMs != nil })},
			{"first transcript", "stroke", chart.FirstSentence, count(func(x artifact.RealtimeTurn) bool { return x.FirstTranscriptMs != nil })},
			{"first text", "stroke", chart.TTFT, count(func(x artifact.RealtimeTurn) bool { return x.FirstTextMs != nil })},
			{"first audio", "stroke", chart.Idle, count(func(x artifact.RealtimeTurn) bool { return x.FirstAudioMs != nil })},
			{"answer's audio", "fill", chart.Cached, count(func(x artifact.RealtimeTurn) bool { return x.FirstAudioMs != nil })},
			{"done", "stroke", chart.Capacity, count(func(x artifact.RealtimeTurn) bool { return x.DoneMs != nil })},
			{"onset", "stroke", chart.Due, count(func(x artifact.RealtimeTurn) bool { return x.BargeOnsetMs != nil })},
			{"cancel", "stroke", chart.Cut, count(func(x artifact.RealtimeTurn) bool { return x.CancelMs != nil })},
			{"audio after the cancel", "fill", chart.AfterCancel, count(func(x artifact.RealtimeTurn) bool { return x.CancelMs != nil })},
			{"last audio after the cancel", "stroke", chart.AfterCancel, count(func(x artifact.RealtimeTurn) bool { return x.CancelMs != nil })},
			{"event sent", "stroke", chart.Queue, events(true)},
			{"event received", "stroke", chart.Transient, events(false)},
		} {
			if got := marks(svg, m.prop, m.c); got != m.n {
				t.Errorf("%s: %d %s marks with the legend's, want %d", title, got, m.name, m.n)
			}
		}
		labelled := strings.Contains(svg, ">400 ms of audio after the cancel<")
		if labelled != (i == 0) {
			t.Errorf("%s: the audio after the cancel labelled %v", title, labelled)
		}
	}

	// A server that stopped at the cancel: no finding, no span after it.
	rec = realtimeRecord(0)
	page = render(t, realtimeLab(t, &rec))
	if strings.Contains(page, `class="finding"`) || strings.Contains(page, "after the cancel<") {
		t.Errorf("a finding or a span of audio after the cancel where none came")
	}
	if !strings.Contains(page, `<section id="realtime">`) {
		t.Errorf("no realtime section")
	}

	// A comparison says whose the finding is.
	withAudio := realtimeRecord(400)
	page = render(t, realtimeLab(t, &withAudio), realtimeLab(t, &rec))
	if n := strings.Count(page, `<p class="finding">`); n != 1 ||
		!strings.Contains(page, "<strong>Finding:</strong> A: session 1, turn 1: the server kept sending 400 ms of audio after the cancel") {
		t.Errorf("a comparison has %d findings, want A's", n)
	}

	// A folder from before the realtime step: no section, no chart of it.
	page = render(t, realtimeLab(t, nil))
	if strings.Contains(page, `id="realtime"`) || strings.Contains(page, "Realtime session") || strings.Contains(page, "realtime mouth_to_ear_ms") {
		t.Errorf("a folder without realtime.json has a realtime section")
	}
}
