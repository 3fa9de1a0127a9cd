package report

import (
	"sort"

	"ttftlab/internal/rundir"
)

// labSections are a lab run's sections in the lab's order; a step whose
// file is missing has no section.
func labSections(l *rundir.Lab, version string) []section {
	var out []section
	if l.TTFT != nil && len(l.TTFT.Runs) > 0 {
		out = append(out, sectionOf("ttft", "TTFT and total",
			"Five runs of the same question with the prompt cache off: time to the first content chunk, and to the end of the answer.",
			func() (figure, error) { return ttftFigure(l.TTFT) }))
	}
	if len(l.Prefill) > 0 {
		out = append(out, sectionOf("prefill", "Prefill",
			"The same question with 0, 4 and 12 documents in the system prompt: how TTFT and the server's own prompt_ms grow with the prompt, and the fitted cost per token.",
			func() (figure, error) { return prefillFigure(l.Prefill) }))
	}
	if l.Cache != nil {
		out = append(out, cacheSection(l.Cache))
	}
	if len(l.Chunks) > 0 || l.Sentence != nil {
		out = append(out, sentenceSection(l))
	}
	if l.Audio != nil && len(l.Audio.Runs) > 0 {
		out = append(out, audioSection(l.Audio))
	}
	if l.Call != nil && len(l.Call.Runs) > 0 && len(l.Call.Runs[0].Turns) > 0 {
		out = append(out, callSection(l.Call))
	}
	if l.Realtime != nil {
		out = append(out, realtimeSection(l))
	}
	if l.Cancel != nil {
		out = append(out, sectionOf("cancel", "Cancellation",
			"A long answer cut mid-stream: the client closes the connection, and the server must notice and free its slot.",
			func() (figure, error) { return cancelFigure(l.Cancel) },
			func() (figure, error) { return cancelCloseFigure(l.Cancel) }))
	}
	if l.Bargein != nil {
		out = append(out, bargeinSection(l.Bargein))
	}
	if l.Prefix != nil {
		out = append(out, prefixSection(l.Prefix))
	}
	names := make([]string, 0, len(l.Extra))
	for n := range l.Extra {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, extraSection(n, l.Extra[n]))
	}
	// The raw fields, the server and the check list come after the
	// charts: the headline strip has said what they add up to.
	return append(out, labSummary(l, version))
}

// sentenceSection: the stream step's chunks and the sentence step's
// first sentence.
func sentenceSection(l *rundir.Lab) section {
	var builders []func() (figure, error)
	s := l.Sentence
	if s != nil {
		builders = append(builders, func() (figure, error) { return sentenceFigure(s) })
		if s.Pacing != nil {
			builders = append(builders, func() (figure, error) { return speechFigure(s) })
		}
	}
	if len(l.Chunks) > 0 {
		builders = append(builders, func() (figure, error) { return streamFigure(l.Chunks) })
	}
	sec := sectionOf("sentence", "Streaming and the first sentence",
		"A voice agent starts speaking when the first sentence is complete: that moment, against the first token and the end of the answer.",
		builders...)
	if s != nil {
		sec.Quotes = append([]quote{{"first sentence", s.FirstSentence}, {"the whole answer", s.Text}}, sec.Quotes...)
	}
	return sec
}
