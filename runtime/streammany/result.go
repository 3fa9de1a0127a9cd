package streammany

import (
	"errors"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luatable"
	"ttftlab/runtime/request"
)

// finishedRequest is one result: its Lua table and the numbers the
// summary and the record need (NaN where the request has none: no first
// token, no complete sentence; a failed request has no stall_ms).
type finishedRequest struct {
	index                        int
	table                        *lua.LTable
	warmup, ok, cut              bool
	kind, message                string
	status                       int // the HTTP status of an "http" failure
	startMs, runMs               float64
	scheduledMs, queueMs, lateMs float64
	// ramp: the request was due during the plan's ramp.
	ramp                             bool
	ttftMs, firstSentenceMs, totalMs float64
	stallMs                          float64
	chunks                           int
	promptN, cacheN, predictedN      float64
	gapsMs                           []float64
	tags                             *lua.LTable
	// firstAudioMs and underrunMs are the answer's as spoken; NaN when it
	// was not sent to a speech server or no audio came.
	firstAudioMs, underrunMs float64
	spoken                   *voice.Answer
	// t0UnixMs is the wall clock at the request's t0; NaN without one.
	t0UnixMs float64
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// unixMs is t's wall clock in ms since the Unix epoch, to the microsecond.
func unixMs(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }

// describe builds results[index]: index, start_ms, scheduled_ms,
// queue_ms, late_ms, chunks, total_ms, timings, info (exactly stream()'s),
// first_sentence_ms, stall_ms (not for a failed request), error,
// error_kind, warmup, tags.
func (m *many) describe(r load.Result, res *stream.Result, mc *manyCall) finishedRequest {
	L := m.L
	var err error = r.Err
	if err == nil && r.BeforeErr != nil {
		err = r.BeforeErr // the caller's turn was not transcribed: no stream
	}
	if r.Err != nil && mc != nil {
		err = m.h.Requests.Hint(err, mc.call.ServerFrom)
	}
	vals := m.h.Requests.Values(L, res, err)
	// A request of the ramp is warm-up unless the ramp is kept.
	warmup := r.Index <= m.opts.warmup || msOf(r.Scheduled) < m.opts.warmupMs || r.Ramp && !m.opts.rampKeep
	f := finishedRequest{index: r.Index, warmup: warmup, ramp: r.Ramp,
		startMs: msOf(r.Start), runMs: msOf(m.runOffset + r.Start), scheduledMs: msOf(r.Scheduled), queueMs: msOf(r.Began - r.Scheduled),
		lateMs: msOf(r.Began - r.Admitted),
		ttftMs: math.NaN(), firstSentenceMs: math.NaN(), totalMs: res.TotalMs, stallMs: math.NaN(),
		chunks: len(res.Chunks), cut: res.Info.Cut, ok: !r.Failed()}
	f.promptN, f.cacheN, f.predictedN = m.rowTokens(res)
	f.firstAudioMs, f.underrunMs = math.NaN(), math.NaN()
	f.t0UnixMs = math.NaN()
	if t0 := res.Info.T0; !t0.IsZero() {
		f.t0UnixMs = unixMs(t0)
	}
	if mc != nil {
		f.tags = mc.tags
		f.spoken = mc.spoken
		f.firstAudioMs, f.underrunMs = spokenFigures(mc.spoken)
	}
	if res.Info.HasTTFT {
		f.ttftMs = res.Info.TTFTMs
	}
	// A stream that ended well whose answer's speech failed is a failure
	// of its own kind (tts_connect, tts_http, ...); info and the figures
	// measured stay the stream's.
	failure := r.Err
	if failure == nil && r.AfterErr != nil {
		failure, err = r.AfterErr, r.AfterErr
	}
	switch {
	case r.BeforeErr != nil:
		// A turn whose caller's speech was not transcribed is a failure
		// of its kind (stt_timeout, stt_rate_limited, ...); it never
		// reached the LLM, so it has no total_ms.
		f.kind, f.message, f.totalMs = request.ErrorKind(r.BeforeErr), err.Error(), math.NaN()
		var se *stt.Error
		if errors.As(r.BeforeErr, &se) {
			f.status = se.Status
		}
	case failure != nil:
		f.kind, f.message = errorKind(failure), err.Error()
		var se *stream.Error
		if errors.As(failure, &se) && (se.Kind == stream.KindHTTP || se.Kind == stream.KindRateLimited) {
			f.status = se.Status
		}
	}
	for i := 1; i < len(res.Chunks); i++ {
		f.gapsMs = append(f.gapsMs, res.Chunks[i].TMs-res.Chunks[i-1].TMs)
	}
	f.firstSentenceMs, f.stallMs = m.spoken(res.Chunks, res.Info.Done)
	if !f.ok {
		// How long a speaker waited is a figure of an answer that ended
		// and was heard; a failed one's (its stream, or its speech) says
		// nothing about it.
		f.stallMs = math.NaN()
	}
	m.fill(&f, vals)
	return f
}

// rowTokens are a request's prompt_n (prompt tokens the server
// evaluated), cache_n (taken from its cache) and predicted_n (tokens it
// generated), NaN where unknown: llama.cpp's timings, else the usage
// object other servers send (prompt_tokens or input_tokens less their
// cached_tokens, completion_tokens or output_tokens), as stream()'s
// info.prompt_tokens and info.cached_tokens read them. Without a cached
// count only the whole prompt is known, not how much was evaluated.
func (m *many) rowTokens(res *stream.Result) (promptN, cacheN, predictedN float64) {
	promptN, cacheN, predictedN = timing(res, "prompt_n"), timing(res, "cache_n"), timing(res, "predicted_n")
	if promptN == promptN { // timings: llama.cpp
		return promptN, cacheN, predictedN
	}
	prompt, cached, from := request.PromptTokens(res.Timings, res.Info.Usage)
	if from != "usage" {
		return promptN, cacheN, predictedN
	}
	if cached != nil {
		promptN, cacheN = *prompt-*cached, *cached
	}
	if g := request.GeneratedTokens(res.Info.Usage); g != nil {
		predictedN = *g
	}
	return promptN, cacheN, predictedN
}

func timing(res *stream.Result, key string) float64 {
	if v, ok := res.Timings[key].(float64); ok {
		return v
	}
	return math.NaN()
}

// errorKind is the stream package's kind of a failure ("http", "dropped",
// "timeout", ...), that kind after "tts_" for an answer's failed speech
// (voice.Error: "tts_connect", "tts_http", ...), "other" for anything
// else.
func errorKind(err error) string {
	var ve *voice.Error
	if errors.As(err, &ve) {
		return "tts_" + errorKind(ve.Err)
	}
	var se *stream.Error
	if errors.As(err, &se) {
		return string(se.Kind)
	}
	return "other"
}

// spoken is when the first sentence was complete and how long a speaker
// would have waited for text, as the stdlib's speech.pacing says it (at
// its default rate): voice's Pace, which speech.pacing calls too. A
// stream that did not finish has a first sentence only when one was
// complete before it ended.
func (m *many) spoken(chunks []stream.Chunk, done bool) (firstMs, stallMs float64) {
	p := voice.Speaker{CharsPerS: voice.DefaultCharsPerS}.Pace(chunks)
	firstMs, stallMs = math.NaN(), p.StallMs
	if first, ok := request.FirstSentenceMs(p, chunks, done); ok {
		firstMs = first
	}
	return firstMs, stallMs
}

// fill makes the result table.
func (m *many) fill(f *finishedRequest, vals []lua.LValue) {
	var t luatable.Fields
	t.Set("index", lua.LNumber(f.index))
	t.Num("start_ms", f.startMs)
	t.Num("run_ms", f.runMs)
	t.Num("scheduled_ms", f.scheduledMs)
	t.Num("queue_ms", f.queueMs)
	t.Num("late_ms", f.lateMs)
	t.Set("chunks", vals[0])
	t.Set("total_ms", vals[1])
	t.Set("timings", vals[2])
	t.Set("info", vals[3])
	t.Num("first_sentence_ms", f.firstSentenceMs)
	t.Num("stall_ms", f.stallMs)
	t.Set("warmup", lua.LBool(f.warmup))
	if f.kind != "" {
		t.Set("error", lua.LString(f.message))
		t.Set("error_kind", lua.LString(f.kind))
	}
	if f.tags != nil {
		t.Set("tags", f.tags)
	}
	if f.spoken != nil {
		request.FillSpoken(m.L, &t, f.spoken)
	}
	f.table = t.Table(m.L)
}
