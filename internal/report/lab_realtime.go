package report

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
)

// realtimeCharts is how many sessions get a timeline of their own; the
// others are in the figures only, and the section says so.
const realtimeCharts = 6

// realtimeSection: the realtime step (realtime.json), speech to speech
// over one WebSocket: the figures over every turn with their intervals, a
// timeline of each session's turns, each on its own clock, a finding
// where the server kept sending audio after a cancel, and the sessions
// that failed with their kinds.
func realtimeSection(l *rundir.Lab) section {
	r := l.Realtime
	var builders []func() (figure, error)
	for i := range min(len(r.Sessions), realtimeCharts) {
		if len(r.Sessions[i].Turns) > 0 {
			builders = append(builders, func() (figure, error) { return realtimeTimeline(r, i) })
		}
	}
	sec := sectionOf("realtime", "Realtime session",
		"The caller's audio sent over one WebSocket as a phone line sends it (paced to the clock, silence between turns), the server's own voice detection deciding "+
			"when the caller stopped, and the answer's audio coming back as deltas; a barge-in speaks the next turn over the answer and cancels it. "+
			"Each turn on its own clock: 0 is its first speech frame sent (for a turn that barged in, the caller's onset).",
		builders...)
	turns, barges := 0, 0
	var failed []string
	for _, s := range r.Sessions {
		turns += len(s.Turns)
		for _, t := range s.Turns {
			if t.CancelMs != nil {
				barges++
			}
		}
		if s.ErrorKind != nil {
			failed = append(failed, *s.ErrorKind)
		}
	}
	sessions := fmt.Sprintf("sessions: %d; turns: %d; barge-ins: %d", len(r.Sessions), turns, barges)
	if len(failed) > 0 {
		sessions += fmt.Sprintf("; failed: %d (%s)", len(failed), strings.Join(failed, ", "))
	}
	if len(r.Sessions) > realtimeCharts {
		sessions += fmt.Sprintf("; the first %d drawn", realtimeCharts)
	}
	sec.Quotes = append(sec.Quotes,
		quote{"server", r.Server},
		quote{"dialect", realtimeDialect(r.Dialect)},
		quote{"audio", fmt.Sprintf("PCM16 mono at %d Hz both ways", r.Rate)},
		quote{"sessions", sessions})
	sec.Findings = afterCancelFindings(r)
	sec.Tables = append(sec.Tables, realtimeFiguresTable(l.RealtimeSamples()))
	if len(failed) > 0 {
		sec.Tables = append(sec.Tables, realtimeFailures(r))
	}
	return sec
}

// realtimeDialect says what a dialect's name means.
func realtimeDialect(d string) string {
	switch d {
	case "openai-ga":
		return "openai-ga (OpenAI's Realtime GA events: response.output_audio.delta)"
	case "beta":
		return "beta (the beta event names: response.audio.delta)"
	case "":
		return "not found (the session never opened)"
	}
	return d
}

// afterCancelFindings say, for each cancelled answer whose audio still
// came after the cancel, how much: what the caller hears over their own
// voice. None when every server stopped at the cancel.
func afterCancelFindings(r *rundir.Realtime) []string {
	var out []string
	for i, s := range r.Sessions {
		for k, t := range s.Turns {
			if t.CancelMs == nil || t.AudioAfterCancelMs == nil || !(*t.AudioAfterCancelMs > 0) {
				continue
			}
			out = append(out, fmt.Sprintf("session %d, turn %d: the server kept sending %s ms of audio after the cancel (its last audio delta %s ms after response.cancel): the caller hears it over their own voice.",
				i+1, turnNumber(t, k), num(*t.AudioAfterCancelMs), numP(t.CancelToLastAudioMs)))
		}
	}
	return out
}

// turnNumber is the turn's number as recorded, else its place.
func turnNumber(t artifact.RealtimeTurn, k int) int {
	if t.Turn > 0 {
		return t.Turn
	}
	return k + 1
}

// realtimeFiguresTable is each of the step's figures with n, its median,
// p95 and mean, each with its 95 % interval, and what it is over.
func realtimeFiguresTable(samples []figures.Sample) table {
	t := table{Caption: "the realtime step's figures over its turns, each with its 95 % interval (a failed session's failing turn left out)",
		Head: []string{"figure", "n", "p50", "p50, 95 % interval", "p95", "p95, 95 % interval", "mean", "mean, 95 % interval", "over"}}
	for _, s := range samples {
		f := figures.FigureOf(s, [][]float64{s.Values})
		t.add(strings.TrimPrefix(f.Name, "realtime ")+" ("+f.Unit+")", strconv.Itoa(f.N), numP(f.P50), ciOnly(f.P50, f.P50CI),
			numP(f.P95), ciOnly(f.P95, f.P95CI), numP(f.Mean), ciOnly(f.Mean, f.MeanCI), f.Over)
	}
	t.Numeric = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true}
	return t
}

// realtimeFailures lists the sessions that failed: the kind, the turns
// measured before it, and the message (the key already scrubbed by the
// driver).
func realtimeFailures(r *rundir.Realtime) table {
	t := table{Caption: "failed sessions", Head: []string{"session", "turns measured", "kind", "error"}}
	for i, s := range r.Sessions {
		if s.ErrorKind == nil {
			continue
		}
		msg := ""
		if s.Error != nil {
			msg = *s.Error
		}
		t.addClass("bad", strconv.Itoa(i+1), strconv.Itoa(len(s.Turns)), *s.ErrorKind, msg)
	}
	t.Numeric = map[int]bool{1: true}
	return t
}

// The lanes of a turn's row, as offsets from the row's centre (row 0 at
// the top, a larger offset lower): the caller and the server's voice
// detection, the answer, the audio after a cancel, the events.
const (
	laneCaller = -0.3
	laneAnswer = -0.04
	laneAfter  = 0.18
	laneEvents = 0.37
)

// realtimeTimeline draws session i: one row per turn on the turn's own
// clock: the caller's audio with its speech end, the server's
// speech_started and speech_stopped as received and the audio_end_ms it
// gave, the answer's first transcript, text and audio deltas, its audio
// as played from the first delta, response.done, and of a barge-in the
// onset, the cancel and the audio that still came after it (labelled
// with its ms); every event as a tick where the turn kept them.
func realtimeTimeline(r *rundir.Realtime, i int) (figure, error) {
	s := r.Sessions[i]
	failedAt := rundir.RealtimeFailedTurn(s)
	rows := make([]string, len(s.Turns))
	for k, t := range s.Turns {
		rows[k] = "turn " + strconv.Itoa(turnNumber(t, k))
		switch {
		case k == failedAt:
			rows[k] += ", failed"
		case k > 0 && s.Turns[k-1].BargeOnsetMs != nil:
			rows[k] += ", barged in"
		}
	}
	title := fmt.Sprintf("Realtime session %d: each turn on its own clock", i+1)
	p := chart.New(title, "time since the turn's start (ms)", "")
	chart.Rows(p, rows, 0)
	h := vg.Length(75 + 56*float64(len(rows)))
	p.X.Min = 0

	var caller, answer, after []chart.Span
	ticks := map[string][]chart.Tick{}
	tick := func(name string, row float64, at *float64) {
		if at != nil {
			ticks[name] = append(ticks[name], chart.Tick{Row: row, At: *at})
		}
	}
	var labels []*chart.Label
	for k, t := range s.Turns {
		row := float64(k)
		caller = append(caller, chart.Span{Row: row + laneCaller, From: 0, To: t.AudioMs})
		end := t.SpeechEndMs
		tick("speech end", row+laneCaller, &end)
		tick("speech_started", row+laneCaller, t.SpeechStartedMs)
		tick("speech_stopped", row+laneCaller, t.SpeechStoppedMs)
		tick("audio_end_ms", row+laneCaller, t.ServerAudioEndMs)
		tick("onset", row+laneCaller, t.BargeOnsetMs)
		tick("first transcript", row+laneAnswer, t.FirstTranscriptMs)
		tick("first text", row+laneAnswer, t.FirstTextMs)
		tick("first audio", row+laneAnswer, t.FirstAudioMs)
		if t.FirstAudioMs != nil {
			answer = append(answer, chart.Span{Row: row + laneAnswer, From: *t.FirstAudioMs, To: *t.FirstAudioMs + t.AnswerAudioMs})
		}
		tick("done", row+laneAnswer, t.DoneMs)
		tick("cancel", row+laneAnswer, t.CancelMs)
		if t.CancelMs != nil && t.AudioAfterCancelMs != nil && *t.AudioAfterCancelMs > 0 {
			last := *t.CancelMs + orZero(t.CancelToLastAudioMs)
			after = append(after, chart.Span{Row: row + laneAfter, From: *t.CancelMs, To: last})
			tick("last audio", row+laneAfter, &last)
			labels = append(labels, &chart.Label{From: *t.CancelMs, To: last, Y: row + laneAfter,
				Text: num(*t.AudioAfterCancelMs) + " ms of audio after the cancel", Color: chart.AfterCancel})
		}
		for _, e := range t.Events {
			at := e.AtMs
			if e.Sent {
				tick("event sent", row+laneEvents, &at)
			} else {
				tick("event received", row+laneEvents, &at)
			}
		}
	}
	chart.AddSpans(p, "caller's audio sent", caller, chart.Spoken, 8)
	chart.AddSpans(p, "answer's audio, played from its first delta", answer, chart.Cached, 8)
	chart.AddSpans(p, "audio after the cancel, as it came", after, chart.AfterCancel, 8)
	for _, m := range []struct {
		key, name string
		c         color.Color
		width     vg.Length
	}{
		{"speech end", "caller's speech end (from the audio)", chart.Chunk, 2},
		{"speech_started", "server: speech_started", chart.Began, 2},
		{"speech_stopped", "server: speech_stopped, as received", chart.P50, 2},
		{"audio_end_ms", "server: its audio_end_ms", chart.Evaluated, 2},
		{"onset", "barge-in: the caller speaks again", chart.Due, 2},
		{"first transcript", "first transcript delta", chart.FirstSentence, 2},
		{"first text", "first text delta", chart.TTFT, 2},
		{"first audio", "first audio delta", chart.Idle, 2},
		{"done", "response.done", chart.Capacity, 2},
		{"cancel", "response.cancel sent", chart.Cut, 2},
		{"last audio", "last audio delta after the cancel", chart.AfterCancel, 2},
		{"event received", "event received", chart.Transient, 1},
		{"event sent", "event sent", chart.Queue, 1},
	} {
		chart.AddTicks(p, m.name, ticks[m.key], m.c, 10, m.width)
	}
	for _, l := range labels {
		chart.AddLabel(p, l.Text, l.From, l.To, l.Y, l.Color)
	}
	f, err := draw(p, h, realtimeTurnsTable(s))
	if err != nil {
		return f, err
	}
	f.More = realtimeStamps(s)
	return f, nil
}

func orZero(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// realtimeTurnsTable is each turn's mouth to ear, first audio, audio
// after a cancel and status, beside its timeline.
func realtimeTurnsTable(s artifact.RealtimeSession) table {
	t := table{Head: []string{"turn", "mouth_to_ear_ms", "first_audio_ms", "audio_after_cancel_ms", "status"}}
	failedAt := rundir.RealtimeFailedTurn(s)
	for k, turn := range s.Turns {
		status := turn.Status
		if k == failedAt {
			status = "failed: " + *s.ErrorKind
		}
		cells := []string{strconv.Itoa(turnNumber(turn, k)), numP(turn.MouthToEarMs), numP(turn.FirstAudioMs), numP(turn.AudioAfterCancelMs), status}
		if k == failedAt {
			t.addClass("bad", cells...)
		} else {
			t.add(cells...)
		}
	}
	t.Numeric = map[int]bool{0: true, 1: true, 2: true, 3: true}
	return t
}

// realtimeStamps is every stamp of each turn, a column a turn, for the
// disclosure under the timeline.
func realtimeStamps(s artifact.RealtimeSession) *table {
	head := []string{"ms on the turn's clock"}
	for k, t := range s.Turns {
		head = append(head, "turn "+strconv.Itoa(turnNumber(t, k)))
	}
	t := &table{Caption: "every stamp and figure of each turn", Head: head}
	for _, f := range []struct {
		name string
		v    func(t artifact.RealtimeTurn) string
	}{
		{"said", func(t artifact.RealtimeTurn) string { return excerpt(t.Said, 40) }},
		{"audio_ms", func(t artifact.RealtimeTurn) string { return num(t.AudioMs) }},
		{"speech_end_ms", func(t artifact.RealtimeTurn) string { return num(t.SpeechEndMs) }},
		{"speech_started_ms", func(t artifact.RealtimeTurn) string { return numP(t.SpeechStartedMs) }},
		{"server_audio_start_ms", func(t artifact.RealtimeTurn) string { return numP(t.ServerAudioStartMs) }},
		{"speech_stopped_ms", func(t artifact.RealtimeTurn) string { return numP(t.SpeechStoppedMs) }},
		{"server_audio_end_ms", func(t artifact.RealtimeTurn) string { return numP(t.ServerAudioEndMs) }},
		{"first_transcript_ms", func(t artifact.RealtimeTurn) string { return numP(t.FirstTranscriptMs) }},
		{"first_text_ms", func(t artifact.RealtimeTurn) string { return numP(t.FirstTextMs) }},
		{"first_audio_ms", func(t artifact.RealtimeTurn) string { return numP(t.FirstAudioMs) }},
		{"mouth_to_ear_ms", func(t artifact.RealtimeTurn) string { return numP(t.MouthToEarMs) }},
		{"answer_audio_ms", func(t artifact.RealtimeTurn) string { return num(t.AnswerAudioMs) }},
		{"underrun_ms", func(t artifact.RealtimeTurn) string { return numP(t.UnderrunMs) }},
		{"done_ms", func(t artifact.RealtimeTurn) string { return numP(t.DoneMs) }},
		{"status", func(t artifact.RealtimeTurn) string { return t.Status }},
		{"barge_onset_ms", func(t artifact.RealtimeTurn) string { return numP(t.BargeOnsetMs) }},
		{"onset_to_speech_started_ms", func(t artifact.RealtimeTurn) string { return numP(t.OnsetToSpeechStartedMs) }},
		{"cancel_ms", func(t artifact.RealtimeTurn) string { return numP(t.CancelMs) }},
		{"cancel_on", func(t artifact.RealtimeTurn) string { return t.CancelOn }},
		{"played_ms", func(t artifact.RealtimeTurn) string { return numP(t.PlayedMs) }},
		{"cancel_to_last_audio_ms", func(t artifact.RealtimeTurn) string { return numP(t.CancelToLastAudioMs) }},
		{"audio_after_cancel_ms", func(t artifact.RealtimeTurn) string { return numP(t.AudioAfterCancelMs) }},
		{"events", func(t artifact.RealtimeTurn) string { return strconv.Itoa(len(t.Events)) }},
		{"transcript", func(t artifact.RealtimeTurn) string { return excerpt(t.Transcript, 60) }},
		{"text", func(t artifact.RealtimeTurn) string { return excerpt(t.Text, 60) }},
	} {
		cells := []string{f.name}
		for _, turn := range s.Turns {
			cells = append(cells, f.v(turn))
		}
		t.add(cells...)
	}
	return t.numericFrom(1)
}
