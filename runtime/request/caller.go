package request

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/turn"
	"ttftlab/internal/voice"
)

// Caller is the caller's side of a command's turns: the speech-to-text
// server the caller's audio goes to, and where that audio comes from.
type Caller struct {
	STT    stt.Config
	Espeak string // espeak-ng binary for synthesized caller audio
	Voice  string // --caller-voice ("" : from the text's script)
	// AudioDir is --caller-audio: one WAV per turn, sorted by name, turn k
	// -> file (k-1) mod n.
	AudioDir string
	Engine   string               // "pocketsphinx 5.1.1", or the server's name
	CPU      func() time.Duration // the default engine's CPU (nil for a user's server)

	// mu guards clips: the clips made so far, by source (a WAV's path, or
	// the voice and the text synthesized), since a call's turns and a
	// load's calls speak the same questions again.
	mu    sync.Mutex
	clips map[string]*callaudio.Clip
}

// Record is the caller's speech-to-text side as the artifacts record it
// (stt_info(), load.json's settings.stt): the URL as shown (no secret in
// it), the protocol (--stt-api, else the URL's, as Listen takes it), the
// engine, model, language, the caller's audio folder and the key only as
// where it was set; nil without a server.
func (c *Caller) Record() *artifact.LoadSTT {
	if c == nil || c.STT.Endpoint == nil {
		return nil
	}
	ep := c.STT.Endpoint
	api := c.STT.API
	if api == "" {
		api = stt.APIFor(ep.Base)
	}
	rec := &artifact.LoadSTT{URL: endpoint.ShownURL(ep.Base), API: string(api), Engine: c.Engine, Model: ep.Model,
		Language: c.STT.Language, CallerAudio: c.AudioDir}
	if ep.Key != "" {
		rec.APIKey = "set from " + ep.KeySource
	}
	return rec
}

// Listen makes turn k's clip (the WAV of AudioDir, else text synthesized,
// cached by text) and transcribes it: the one caller side that listen(),
// stream{stt} and stream_many use.
func (c *Caller) Listen(ctx context.Context, text string, k int) (*stt.Result, *callaudio.Clip, error) {
	clip, err := c.Clip(ctx, text, c.Voice, k)
	if err != nil {
		return nil, nil, err
	}
	r, err := stt.Transcribe(ctx, c.STT, clip)
	return r, clip, err
}

// Clip is turn k's utterance (k from 1): AudioDir's WAV (k-1) mod n when
// there is a folder, else text spoken by espeak-ng in voice ("" : from
// the text's script). A clip is made once per source and shared: nothing
// may change it.
func (c *Caller) Clip(ctx context.Context, text, voice string, k int) (*callaudio.Clip, error) {
	if c.AudioDir != "" {
		files, err := CallerWAVs(c.AudioDir)
		if err != nil {
			return nil, err
		}
		if k < 1 {
			k = 1
		}
		return c.WAV(files[(k-1)%len(files)])
	}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("the caller has nothing to say: the text to speak is empty")
	}
	if c.Espeak == "" {
		return nil, fmt.Errorf("no espeak-ng to speak the caller's text with, and no folder of the caller's WAV files")
	}
	return c.cached("say\x00"+voice+"\x00"+text, func() (*callaudio.Clip, error) {
		return callaudio.Synthesize(ctx, c.Espeak, text, voice)
	})
}

// WAV is the clip of a WAV file (any rate, depth and channels; its text
// from the .txt beside it), read once.
func (c *Caller) WAV(path string) (*callaudio.Clip, error) {
	return c.cached("wav\x00"+path, func() (*callaudio.Clip, error) { return callaudio.ReadWAV(path) })
}

func (c *Caller) cached(key string, load func() (*callaudio.Clip, error)) (*callaudio.Clip, error) {
	c.mu.Lock()
	clip := c.clips[key]
	c.mu.Unlock()
	if clip != nil {
		return clip, nil
	}
	clip, err := load()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clips == nil {
		c.clips = map[string]*callaudio.Clip{}
	}
	if kept := c.clips[key]; kept != nil {
		return kept, nil
	}
	c.clips[key] = clip
	return clip, nil
}

// CallerWAVs are the WAV files of a folder of the caller's audio, sorted by
// name; an error when the folder cannot be read or holds none.
func CallerWAVs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the caller's audio folder: %w", err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".wav") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("the caller's audio folder %s holds no .wav file", dir)
	}
	sort.Strings(files)
	return files, nil
}

// TurnOf is a spoken turn's stamps on the turn clock, chosen here once
// for every record of a turn (listen(), stream()'s info.turn, stream_many's
// results and rows, load --stt): the utterance r and, when the LLM
// request was written (res's t0; res nil: no request, as in listen()),
// its answer: the first token; the first sentence complete, which with
// the answer spoken (answer, the speech pipeline's) is the pipeline's
// first sentence, the one sent to the speech engine, and otherwise the
// one a speaker's pace of the chunks finds (FirstSentenceMs); that
// sentence sent to the speech engine and the answer's first audio (only
// spoken).
func TurnOf(r *stt.Result, res *stream.Result, answer *voice.Answer) turn.Stamps {
	if res == nil {
		return turnStamps(r, time.Time{}, nil, nil, nil, nil)
	}
	var ttft, first, sent, audio *float64
	if res.Info.HasTTFT {
		v := res.Info.TTFTMs
		ttft = &v
	}
	switch {
	case answer != nil && len(answer.Sentences) > 0:
		v := answer.Sentences[0].ReadyMs
		first, sent, audio = &v, answer.Sentences[0].TTSSentMs, answer.FirstAudioMs
	case answer == nil:
		p := voice.Speaker{CharsPerS: voice.DefaultCharsPerS}.Pace(res.Chunks)
		if v, ok := FirstSentenceMs(p, res.Chunks, res.Info.Done); ok {
			first = &v
		}
	}
	return turnStamps(r, res.Info.T0, ttft, first, sent, audio)
}

// turnStamps puts an utterance and the LLM answer (times since the LLM
// request's t0, nil where missing) on the turn clock. A zero t0 (the
// request was never written) leaves the LLM's stamps nil.
func turnStamps(r *stt.Result, t0 time.Time, ttft, firstSentence, ttsSent, firstAudio *float64) turn.Stamps {
	final := r.FinalMs
	s := turn.Stamps{SpeechEndMs: r.SpeechEndMs, SpeechStoppedMs: r.SpeechStoppedMs,
		FirstPartialMs: r.FirstPartialMs, FinalMs: &final}
	if t0.IsZero() {
		return s
	}
	request := float64(t0.Sub(r.Start)) / float64(time.Millisecond)
	at := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := request + *p
		return &v
	}
	s.RequestMs = &request
	s.TTFTMs, s.FirstSentenceMs, s.TTSSentMs, s.FirstAudioMs = at(ttft), at(firstSentence), at(ttsSent), at(firstAudio)
	return s
}
