package report

import (
	"fmt"
	"image/color"
	"strconv"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
	"ttftlab/internal/turn"
)

// callSection: the call step, mouth to ear: a waterfall for each turn of
// the first repetition (the caller speaking, the speech-to-text side
// noticing the end and finishing the transcript, the hand-off, the LLM's
// first token and first sentence, the speech engine's first audio), the
// median over every turn with its interval, every turn's parts, and a
// warning where a transcript was garbled.
func callSection(c *rundir.Call) section {
	var builders []func() (figure, error)
	for k := range c.Runs[0].Turns {
		builders = append(builders, func() (figure, error) { return callWaterfall(c, k) })
	}
	sec := sectionOf("call", "Mouth to ear",
		"Each question is spoken (caller audio sent as a phone line sends it), transcribed, asked of the LLM as transcribed, and its first sentence spoken: "+
			"from the moment the caller stops speaking to the moment the caller hears the answer, and what that wait is made of.",
		builders...)
	var m2e []float64
	for _, r := range c.Repetitions() {
		for _, t := range r.Turns {
			m2e = append(m2e, t.Parts.MouthToEarMs)
		}
	}
	f := figures.FigureOf(figures.Sample{Name: "call mouth_to_ear_ms", Unit: "ms"}, [][]float64{m2e})
	median := fmt.Sprintf("%s ms %s over %d turns", numP(f.P50), ciOnly(f.P50, f.P50CI), len(m2e))
	if f.P50CI == nil {
		median = fmt.Sprintf("%s ms over %d turns (%s for its interval: it needs 6)", numP(f.P50), len(m2e), tooFew)
	}
	sec.Quotes = append(sec.Quotes,
		quote{"mouth to ear, median over every turn (95 % interval)", median},
		quote{"speech-to-text", callSTT(c.STT)})
	if w := garbledWarning(c); w != "" {
		sec.Warnings = append(sec.Warnings, w)
	}
	sec.Tables = append(sec.Tables, callTurnsTable(c).numericFrom(2).folded(true))
	return sec
}

// callSTT names the speech-to-text side.
func callSTT(s artifact.LoadSTT) string {
	who := s.URL
	if s.Engine != "" {
		who = s.Engine + " (a 2010s recognizer: its accuracy and timing are not a modern model's)"
	}
	audio := "the questions spoken by espeak-ng"
	if s.CallerAudio != "" {
		audio = "the caller's audio from " + s.CallerAudio
	}
	return fmt.Sprintf("%s, API %s; %s", who, s.API, audio)
}

// garbledWarning says which turns' transcripts were garbled
// (turn.Garbled), whose LLM timings are of another question; "" when
// none was.
func garbledWarning(c *rundir.Call) string {
	n, of, worst := 0, 0, ""
	for i, r := range c.Repetitions() {
		for k, t := range r.Turns {
			of++
			if turn.Garbled(t.WER) {
				n++
				if worst == "" {
					worst = fmt.Sprintf("run %d, turn %d: %q heard as %q (word error rate %s)", i+1, k+1, t.Said, t.Transcript, num(t.WER))
				}
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d transcripts are garbled (word error rate above %s): the LLM was asked another question, so those turns' LLM timings are of a garbled question. First: %s.",
		n, of, num(turn.GarbledWER), worst)
}

// callTurnsTable is every turn of every run with its parts as recorded.
func callTurnsTable(c *rundir.Call) *table {
	t := &table{Caption: "every turn: its parts (ms) and transcript",
		Head: []string{"run", "turn", "mouth_to_ear_ms", "stt_final_ms", "endpointing_ms", "handoff_ms", "llm_ttft_ms", "first_sentence_ms", "tts_first_audio_ms", "client_overhead_ms", "wer", "transcript"}}
	for i, r := range c.Repetitions() {
		for k, turnRec := range r.Turns {
			p := turnRec.Parts
			cells := []string{strconv.Itoa(i + 1), strconv.Itoa(k + 1), num(p.MouthToEarMs), num(p.SttFinalMs), numP(p.EndpointingMs),
				num(p.HandoffMs), num(p.LLMTTFTMs), num(p.FirstSentenceMs), num(p.TTSFirstAudioMs), num(p.ClientOverheadMs),
				num(turnRec.WER), strconv.Quote(turnRec.Transcript)}
			if turn.Garbled(turnRec.WER) {
				t.addClass("bad", cells...)
			} else {
				t.add(cells...)
			}
		}
	}
	return t
}

// callWaterfall draws turn k of the first run as a waterfall on the
// turn's clock: each part a bar from the stamp it starts at to the one it
// ends at, one row each, so the bars step down to the first audio.
func callWaterfall(c *rundir.Call, k int) (figure, error) {
	t := c.Runs[0].Turns[k]
	s := t.Stamps
	rows := []string{"caller speaks", "endpointing", "transcription", "handoff", "LLM first token", "first sentence", "speech engine first audio"}
	p := chart.New(fmt.Sprintf("Turn %d: %s (run 1)", k+1, excerpt(t.Said, 50)), "time since the caller began to speak (ms)", "")
	h := rowsLayout(p, rows, len(rows)+1)
	// The transcription runs from the server's end of speech where it
	// says one, else from the speech end: endpointing is then not shown.
	from := s.SpeechEndMs
	tab := table{Head: []string{"part", "ms"}}
	tab.add("caller speaks (speech_end_ms)", num(s.SpeechEndMs))
	if s.SpeechStoppedMs != nil {
		from = *s.SpeechStoppedMs
	}
	for _, b := range []struct {
		name     string
		row      float64
		from, to float64
		c        color.Color
		part     string
		v        *float64
	}{
		{"caller speaking", 0, 0, s.SpeechEndMs, chart.Spoken, "", nil},
		{"endpointing", 1, s.SpeechEndMs, from, chart.Stall, "endpointing_ms", t.Parts.EndpointingMs},
		{"transcription", 2, from, s.FinalMs, chart.Prompt, "transcription_ms", t.Parts.TranscriptionMs},
		{"client hand-offs", 3, s.FinalMs, s.RequestMs, chart.Queue, "handoff_ms", &t.Parts.HandoffMs},
		{"LLM first token", 4, s.RequestMs, s.TTFTMs, chart.TTFT, "llm_ttft_ms", &t.Parts.LLMTTFTMs},
		{"first sentence", 5, s.TTFTMs, s.FirstSentenceMs, chart.FirstSentence, "first_sentence_ms", &t.Parts.FirstSentenceMs},
		{"", 3, s.FirstSentenceMs, s.TTSSentMs, chart.Queue, "tts_handoff_ms", &t.Parts.TTSHandoffMs},
		{"speech engine first audio", 6, s.TTSSentMs, s.FirstAudioMs, chart.Total, "tts_first_audio_ms", &t.Parts.TTSFirstAudioMs},
	} {
		if b.name == "endpointing" && s.SpeechStoppedMs == nil {
			tab.add("endpointing (the server does not say when it heard the end)", "–")
			continue
		}
		name := b.name
		if b.part == "transcription_ms" && s.SpeechStoppedMs == nil {
			name = "speech end to final transcript"
		}
		chart.AddSpans(p, name, []chart.Span{{Row: b.row, From: b.from, To: b.to}}, b.c, 14)
		if b.part != "" {
			tab.add(b.part, numP(b.v))
		}
	}
	tab.add("stt_final_ms", num(t.Parts.SttFinalMs))
	tab.add("mouth_to_ear_ms", num(t.Parts.MouthToEarMs))
	tab.add("wer", num(t.WER))
	chart.AddRule(p, "speech end", s.SpeechEndMs, true, chart.Chunk, true)
	chart.AddRule(p, "first audio", s.FirstAudioMs, true, chart.Idle, false)
	return draw(p, h, *tab.numericFrom(1))
}
