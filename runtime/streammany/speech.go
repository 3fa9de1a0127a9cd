package streammany

import (
	"math"

	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
	"ttftlab/runtime/request"
)

// speakAnswer speaks a request of stream_many as it streams; the request's
// goroutine waits for the audio, so the result handed back carries it in
// mc.spoken. A sentence whose speech failed fails the request
// (voice.Error).
func (m *many) speakAnswer(sp *voice.Speech, mc *manyCall) func(res *stream.Result, err error) error {
	spoken := request.SpeakWhileStreaming(m.h.Ctx(m.L), sp, &mc.call.Stream)
	return func(res *stream.Result, err error) error {
		mc.spoken = spoken(res, err)
		return mc.spoken.Err()
	}
}

// spokenFigures are a result's first audio and underrun for the record
// and the summary; NaN when it has none.
func spokenFigures(a *voice.Answer) (firstAudioMs, underrunMs float64) {
	firstAudioMs, underrunMs = math.NaN(), math.NaN()
	if a == nil {
		return
	}
	if a.FirstAudioMs != nil {
		firstAudioMs = *a.FirstAudioMs
	}
	if a.FirstAudioMs != nil {
		underrunMs = a.UnderrunMs
	}
	return
}
