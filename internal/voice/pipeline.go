// Package voice speaks a streamed answer as a voice agent does: each
// sentence goes to the speech server the moment it is complete (one
// request per sentence, several in flight), and the audio is played back
// as a speaker plays it (internal/audio's Play). It is the pipeline of
// the stdlib's voice module and of the requests that stream_many runs on
// goroutines of their own, with the sentence rules of internal/sentence;
// and the pace of a speaker reading an answer as it streams (Pace), which
// the stdlib's speech module and stream_many's results call.
package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"ttftlab/internal/audio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/espeak"
	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
)

// Speech is how the sentences are asked of the speech server.
type Speech struct {
	Endpoint *endpoint.Endpoint
	// Model, Voice ("" follows each sentence's script), Format ("pcm",
	// the default, or "wav"), SampleRate (pcm's, 0: 24 kHz), Speed (0: 1).
	Model, Voice, Format string
	SampleRate           int
	Speed                float64
	// Timeout bounds each speech request (0: none); Wire and
	// NoKernelStamps are the stream's.
	Timeout        time.Duration
	Wire           stream.Wire
	NoKernelStamps bool
	// Clause sends the answer's first clause as soon as it is decided
	// (sentence.FirstClause, at least MinClauseChars characters before
	// its mark; 0: sentence.MinClauseChars), before its first sentence is
	// complete: an earlier, riskier start.
	Clause         bool
	MinClauseChars int
}

// Sentence is one sentence of the answer as spoken. Times are on the
// answer's axis (t0 of its LLM request); a time that did not happen is
// nil.
type Sentence struct {
	Text, Voice string
	// ReadyMs is when the chunk that completed it arrived; TTSSentMs when
	// its speech request's first byte was written.
	ReadyMs   float64
	TTSSentMs *float64
	// FirstAudioMs, FirstVoicedMs and AudioDoneMs are when its first,
	// first voiced and last audio bytes came; AudioMs its length.
	FirstAudioMs, FirstVoicedMs, AudioDoneMs *float64
	AudioMs                                  float64
	// StartMs and EndMs are when a speaker plays it; nil when it failed.
	StartMs, EndMs *float64
	// Err is why its speech failed; Cut says it was hung up.
	Err error
	Cut bool
}

// Answer is an answer spoken: its sentences and what the caller heard.
type Answer struct {
	Sentences []Sentence
	// FirstAudioMs and FirstVoicedMs are when the first sentence that was
	// heard began to come: when the caller first hears the answer.
	FirstAudioMs, FirstVoicedMs *float64
	UnderrunMs                  float64
	Underruns                   int
	SpeakEndMs                  *float64
	// OverheadMs is the largest TTSSentMs - ReadyMs: the agent's own
	// hand-off.
	OverheadMs *float64
	// Errors counts the sentences whose speech failed, cuts aside.
	Errors int
}

// Error is an answer whose speech failed: the first sentence whose
// speech request failed (a cut with the answer aside), and how many of
// the answer's sentences failed.
type Error struct {
	// Sentence numbers the first failed sentence from 1; Failed of
	// Sentences failed in all.
	Sentence, Failed, Sentences int
	// Err is that sentence's speech request's error (a *stream.Error).
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("speech failed for %d of %d sentences; sentence %d: %v", e.Failed, e.Sentences, e.Sentence, e.Err)
}

// Unwrap returns the speech request's error.
func (e *Error) Unwrap() error { return e.Err }

// Err is the answer's speech failure, an *Error; nil when every
// sentence's speech came, or was hung up with the answer.
func (a *Answer) Err() error {
	if a.Errors == 0 {
		return nil
	}
	for i, s := range a.Sentences {
		if s.Err != nil && !s.Cut {
			return &Error{Sentence: i + 1, Failed: a.Errors, Sentences: len(a.Sentences), Err: s.Err}
		}
	}
	return nil
}

// Pipeline speaks one answer. Feed it the answer's chunks as they
// arrive (Chunk, from one goroutine at a time), then End, then Wait.
type Pipeline struct {
	sp     Speech
	ctx    context.Context
	cancel context.CancelFunc
	split  sentence.Splitter
	// pre is the text before the first clause while Speech.Clause waits
	// for it; clauseDone once it went (or was not asked for).
	pre        string
	clauseDone bool
	sent       []*request
	wg         sync.WaitGroup
}

// request is one sentence's speech request.
type request struct {
	text, voice string
	readyMs     float64
	res         *stream.Result
	err         error
}

// Start is a pipeline whose speech requests end with ctx.
func Start(ctx context.Context, sp Speech) *Pipeline {
	c, cancel := context.WithCancel(ctx)
	return &Pipeline{sp: sp, ctx: c, cancel: cancel, clauseDone: !sp.Clause}
}

// Chunk takes one chunk of the answer; the sentences it completes go to
// the speech server at once.
func (p *Pipeline) Chunk(c stream.Chunk) {
	text := c.Text
	if !p.clauseDone {
		if text = p.firstClause(text, c.TMs, false); !p.clauseDone {
			return
		}
	}
	for _, r := range p.split.Feed(text, c.TMs) {
		p.send(r.Text, r.TMs)
	}
}

// firstClause adds text to what precedes the first clause and, once the
// clause is decided, sends it and returns what follows it (for the
// sentences); the clause's text grows only until then, so reading it
// again at each chunk stays short.
func (p *Pipeline) firstClause(text string, tMs float64, final bool) string {
	p.pre += text
	min := p.sp.MinClauseChars
	if min == 0 {
		min = sentence.MinClauseChars
	}
	end, ok := sentence.FirstClause(p.pre, final, min)
	if !ok {
		return ""
	}
	p.clauseDone = true
	if t := strings.TrimSpace(p.pre[:end]); t != "" {
		p.send(t, tMs)
	}
	rest := p.pre[end:]
	p.pre = ""
	return rest
}

// End ends the answer: the rest of its text goes to the speech server at
// the answer's end, unless the answer was cut (a barge-in, a hang-up) or
// failed: then the speech requests in flight are hung up and nothing
// more is sent.
func (p *Pipeline) End(res *stream.Result, err error) {
	if err != nil || res == nil || res.Info.Cut {
		p.cancel()
		return
	}
	if !p.clauseDone {
		for _, r := range p.split.Feed(p.firstClause("", res.TotalMs, true), res.TotalMs) {
			p.send(r.Text, r.TMs)
		}
	}
	for _, r := range p.split.End(res.TotalMs) {
		p.send(r.Text, r.TMs)
	}
}

func (p *Pipeline) send(text string, readyMs float64) {
	voice := p.sp.Voice
	if voice == "" {
		voice = espeak.VoiceFor(text)
	}
	r := &request{text: text, voice: voice, readyMs: readyMs}
	p.sent = append(p.sent, r)
	req := p.request(text, voice)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		r.res, r.err = stream.Do(p.ctx, req)
	}()
}

// request is the speech request of one sentence.
func (p *Pipeline) request(text, voice string) stream.Request {
	sp := p.sp
	model, format, speed := sp.Model, sp.Format, sp.Speed
	if model == "" {
		model = "tts-1"
	}
	if format == "" {
		format = "pcm"
	}
	if speed == 0 {
		speed = 1
	}
	body, _ := json.Marshal(map[string]any{"model": model, "input": text, "voice": voice, "response_format": format, "speed": speed})
	req := stream.Request{URL: sp.Endpoint.Base, TLS: sp.Endpoint.TLS, Header: sp.Endpoint.Headers(), API: stream.APISpeech, Body: body,
		Timeout: sp.Timeout, Wire: sp.Wire, NoKernelStamps: sp.NoKernelStamps, Speech: &stream.Speech{}}
	if format == "pcm" {
		f := audio.OpenAIPCM
		if sp.SampleRate > 0 {
			f.SampleRate = sp.SampleRate
		}
		req.Speech.PCM = &f
	}
	return req
}

// Wait waits for every speech request and returns the answer as spoken,
// on the axis of the answer's t0 (its stream.Result's Info.T0).
func (p *Pipeline) Wait(t0 time.Time) Answer {
	p.wg.Wait()
	p.cancel()
	var a Answer
	var played []audio.Sentence
	var heard []int
	for _, r := range p.sent {
		s := Sentence{Text: r.text, Voice: r.voice, ReadyMs: r.readyMs, Err: r.err}
		var se *stream.Error
		if errors.As(r.err, &se) && se.Kind == stream.KindCanceled {
			// Hung up with the answer (a cut, a failure), sent or not.
			s.Cut = true
		}
		if r.res != nil {
			s.Cut = s.Cut || r.res.Info.Cut
			if au := r.res.Audio; au != nil {
				s.AudioMs = au.AudioMs
			}
			if !r.res.Info.T0.IsZero() && !t0.IsZero() {
				at := ms(r.res.Info.T0.Sub(t0))
				s.TTSSentMs = &at
				if o := at - r.readyMs; a.OverheadMs == nil || o > *a.OverheadMs {
					a.OverheadMs = &o
				}
				if au := r.res.Audio; au != nil && au.FirstAudioMs != nil && r.err == nil && !s.Cut {
					fa, done := at+*au.FirstAudioMs, at+r.res.TotalMs
					s.FirstAudioMs, s.AudioDoneMs = &fa, &done
					if au.FirstVoicedMs != nil {
						fv := at + *au.FirstVoicedMs
						s.FirstVoicedMs = &fv
					}
				}
			}
		}
		if r.err != nil && !s.Cut {
			a.Errors++
		}
		if s.FirstAudioMs != nil {
			played = append(played, audio.Sentence{FirstAudioMs: *s.FirstAudioMs, AudioDoneMs: *s.AudioDoneMs, AudioMs: s.AudioMs})
			heard = append(heard, len(a.Sentences))
		}
		a.Sentences = append(a.Sentences, s)
	}
	if len(played) == 0 {
		return a
	}
	pb := audio.Play(played)
	for k, i := range heard {
		st, en := pb.Sentences[k].StartMs, pb.Sentences[k].EndMs
		a.Sentences[i].StartMs, a.Sentences[i].EndMs = &st, &en
	}
	first := a.Sentences[heard[0]]
	a.FirstAudioMs, a.FirstVoicedMs = first.FirstAudioMs, first.FirstVoicedMs
	a.UnderrunMs, a.Underruns = pb.UnderrunMs, pb.Underruns
	end := pb.EndMs
	a.SpeakEndMs = &end
	return a
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
