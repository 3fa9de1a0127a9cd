package streammany

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/interval"
	"ttftlab/internal/load"
	"ttftlab/internal/realtime"
)

// RealtimeConfig is what the sessions of `ttftlab load --realtime` are
// held with: the server and the session's settings, the barge-in, and
// how a line of the caller becomes audio.
type RealtimeConfig struct {
	// Session is the Realtime server and how a session is held with it.
	Session realtime.Config
	// BargeAfterMs, when set, makes every turn of a session but its last
	// barge in: the next turn's audio starts this long after the turn's
	// first audio delta.
	BargeAfterMs *float64
	// Say speaks one of the caller's lines (espeak-ng): called once per
	// distinct line, before a level starts, never while it runs.
	Say func(ctx context.Context, text string) (*callaudio.Clip, error)
}

// RealtimeRunner runs the rounds of `ttftlab load --realtime`
// (load.Runner): each call of the plan is one speech-to-speech session of
// the settings' turns with the Realtime server (internal/realtime), run
// as one job of the engine (load.Job.Session); the session paces its own
// turns, one after the other's answer (or over it, barging in). What the
// caller says is the experiment's: the last user message of the request
// its builder makes for each turn (scripts/load.lua: the calls' lines),
// every line spoken (RealtimeConfig.Say) before the level starts. Each
// turn is a row (requests.jsonl, requests.csv, tagged with the level, the
// call and the turn; realtimeRow says what it holds), whose figures the
// level's record (load.Level) makes as for any row. Its Run must be called
// on the Lua state's goroutine.
type RealtimeRunner struct {
	lr  *Runner
	cfg RealtimeConfig
	// clips are the lines spoken so far, kept across levels.
	clips map[string]*callaudio.Clip
}

// NewRealtimeRunner makes the runner of the sessions set describes, the
// caller's lines from experiment (returned by the script name).
func NewRealtimeRunner(h *Host, experiment *lua.LFunction, name string, set artifact.LoadSettings, cfg RealtimeConfig) *RealtimeRunner {
	return &RealtimeRunner{lr: NewRunner(h, experiment, name, set), cfg: cfg, clips: map[string]*callaudio.Clip{}}
}

// Run runs one round (load.Runner): the round's lines (each call's, one a
// turn) spoken, then its sessions as the plan makes them due. Its errors
// and what a stopped round keeps are Runner.Run's.
func (r *RealtimeRunner) Run(ctx context.Context, round load.Round) (load.RoundResult, error) {
	var res load.RoundResult
	var s *sessions
	var loopErr error
	h := r.lr.h
	err := h.Protect(ctx, func(L *lua.LState) {
		if round.DueUnixMs != nil {
			at := time.UnixMicro(int64(*round.DueUnixMs * 1000))
			if loopErr = load.WaitUntil(ctx, at); loopErr != nil {
				return
			}
		}
		o := r.lr.options(L, round)
		// No LLM server to watch, no answer to speak, no caller to
		// transcribe: the session's server does all of it. A session is
		// one job: its turns are its own.
		o.watch, o.tts, o.caller = nil, nil, nil
		o.plan.Turns = 1
		request, _ := r.lr.builder(L, round)
		lines := r.lines(L, request, o.plan, round.Calls)
		if err := r.speak(ctx, lines); err != nil {
			L.RaiseError("load: %v", err)
		}
		s = &sessions{r: r, h: h, L: L, opts: o, lines: lines, running: map[int]*session{}}
		loopErr = s.run()
	})
	if s != nil && !s.begin.IsZero() {
		res.Rows = make([]artifact.LoadRequest, len(s.rows))
		for i, row := range s.rows {
			row.Level = round.Level
			res.Rows[i] = row
		}
		res.Extras.StartedUnixMs = artifact.Num(unixMs(s.begin))
		if s.use1 != (usage{}) {
			res.Extras.Client = clientUse(s.use0, s.use1, s.elapsed)
		}
	}
	if err = roundErr(ctx, h, err, loopErr); err != nil {
		return res, err
	}
	elapsed := msOf(s.elapsed)
	res.Extras.DurationMs = &elapsed
	if s.over != nil {
		res.Extras.OverSaturated = s.over.Trend
	}
	return res, nil
}

// lines are what the caller of each call of the round says, a line a
// turn: the last user message of the request the experiment builds for
// it (its first turn's draw the plan's, as a streamed load's), asked in
// call and turn order before the round starts.
func (r *RealtimeRunner) lines(L *lua.LState, request *lua.LFunction, plan load.Plan, calls int) [][]string {
	src := requestSource{fn: request}
	turns := r.lr.set.Turns
	results := L.CreateTable(0, 0)
	out := make([][]string, calls)
	for call := 1; call <= calls; call++ {
		draw := plan.CallDraw(call)
		for turn := 1; turn <= turns; turn++ {
			t := load.Turn{Index: (call-1)*turns + turn, Call: call, Turn: turn, Draw: draw}
			messages, _, st := src.get(L, t, results, nil)
			if st != load.Ready {
				L.RaiseError("load: --realtime: the experiment gave no request for turn %d of call %d: its caller would have nothing to say", turn, call)
			}
			var text string
			switch v := messages.(type) {
			case lua.LString:
				text = string(v)
			case *lua.LTable:
				_, text = lastUserLine(L, v, "load: --realtime says")
			default:
				L.RaiseError("load: --realtime says each request's last user message: messages must be a string or an array, got %s", messages.Type())
			}
			out[call-1] = append(out[call-1], text)
		}
	}
	return out
}

// speak makes a clip of every line not spoken yet.
func (r *RealtimeRunner) speak(ctx context.Context, lines [][]string) error {
	for _, call := range lines {
		for _, text := range call {
			if r.clips[text] != nil {
				continue
			}
			clip, err := r.cfg.Say(ctx, text)
			if err != nil {
				return fmt.Errorf("the caller's line %q: %w", text, err)
			}
			r.clips[text] = clip
		}
	}
	return nil
}

// sessions is one round's sessions. Everything but what the sessions'
// goroutines hand over runs on the script's goroutine.
type sessions struct {
	r     *RealtimeRunner
	h     *Host
	L     *lua.LState
	opts  manyOptions
	lines [][]string
	begin time.Time
	// runOffset is begin since the run began: what turns a time since
	// begin into run_ms.
	runOffset time.Duration
	elapsed   time.Duration
	// running are the sessions started, by job index, until they end.
	running map[int]*session
	rows    []artifact.LoadRequest
	over    *load.OverSaturation
	// progress is the live line on a terminal.
	progress   progressLine
	use0, use1 usage
}

// session is one session's outcome, set on its goroutine before its job
// ends: when it was called, what it measured and how it failed.
type session struct {
	called time.Time
	res    *realtime.Result
	err    error
}

func (s *sessions) run() error {
	o := s.opts
	s.begin, s.use0 = time.Now(), clientUsage()
	if o.overSLO != nil {
		s.over = &load.OverSaturation{SLO: *o.overSLO}
	}
	if began := s.h.RunBegan(); !began.IsZero() {
		s.runOffset = s.begin.Sub(began)
	}
	loop, err := load.New(o.plan)
	if err != nil {
		return err
	}
	if o.record != nil {
		if err := o.record.open(); err != nil {
			return written(err)
		}
	}
	defer s.progress.end()
	defer func() {
		s.elapsed = time.Since(s.begin)
		s.use1 = clientUsage()
	}()
	return loop.Run(s.h.Ctx(s.L), load.Hooks{Next: s.next, Finished: s.finished, Tick: s.tick})
}

// next makes a due call's session: its turns, each line's clip, every
// turn but the last barging in when RealtimeConfig.BargeAfterMs says so.
func (s *sessions) next(t load.Turn) (load.Job, load.Status, error) {
	if t.Call > len(s.lines) {
		return load.Job{}, load.Done, nil
	}
	lines := s.lines[t.Call-1]
	turns := make([]realtime.Turn, len(lines))
	for k, text := range lines {
		turns[k] = realtime.Turn{Clip: s.r.clips[text]}
		if b := s.r.cfg.BargeAfterMs; b != nil && k < len(lines)-1 {
			ms := *b
			turns[k].BargeAfterMs = &ms
		}
	}
	ss := &session{}
	s.running[t.Index] = ss
	cfg := s.r.cfg.Session
	return load.Job{Session: func(ctx context.Context) error {
		ss.called = time.Now()
		ss.res, ss.err = realtime.Run(ctx, cfg, turns)
		return ss.err
	}}, load.Ready, nil
}

// finished makes a session's rows, a turn each, and records them.
func (s *sessions) finished(r load.Result) (bool, error) {
	ss := s.running[r.Index]
	delete(s.running, r.Index)
	if ss == nil {
		ss = &session{err: r.Err}
	}
	over := false
	for _, rec := range s.realtimeRows(r, ss) {
		row := artifact.LoadRequest{Call: r.Call, Turn: rec.turn, Request: rec.Request}
		s.rows = append(s.rows, row)
		if rc := s.opts.record; rc != nil {
			tags := s.L.CreateTable(0, 2)
			tags.RawSetString("call", lua.LNumber(r.Call))
			tags.RawSetString("turn", lua.LNumber(rec.turn))
			if err := rc.add(s.L, s.h.JSON, finishedRequest{index: rec.Index, tags: tags}, rec.Request); err != nil {
				return false, err
			}
		}
		// An over-saturated level starts no new session.
		if s.over != nil && s.over.Ended(row) {
			over = true
		}
	}
	return !over && s.h.Ctx(s.L).Err() == nil, nil
}

// turnRow is a row of a session's turn.
type turnRow struct {
	turn int
	artifact.Request
}

// realtimeRows are a session's rows, one a turn it measured (a failed
// session's turns measured before the failure, the failed turn last with
// the failure; one row for turn 1 without figures when it failed before
// any turn). A
// row's start_ms is its turn's start (its first speech frame left, or the
// barge-in's onset), on the level's clock; scheduled_ms, queue_ms and
// late_ms are the session's, on its first turn's row only (a later turn
// is due when the session says, not the plan); t0_unix_ms is the turn's
// start on the wall clock. The turn's figures (artifact.RealtimeTurn):
// caller_audio_ms its clip (a turn the caller spoke), mouth_to_ear_ms,
// first_audio_ms (from the turn's start), underrun_ms, audio_ms (the
// answer's audio), endpointing_ms (the caller's speech end to the
// server's speech_stopped), total_ms (the turn's start to response.done),
// audio_after_cancel_ms (a barged-in turn's); ttft_ms, first_sentence_ms
// and stall_ms are null (no LLM stream is seen) and chunks 0.
func (s *sessions) realtimeRows(r load.Result, ss *session) []turnRow {
	o := s.opts
	res := ss.res
	var failed *realtime.Error
	if errors.As(ss.err, &failed) && failed.Partial != nil {
		res = failed.Partial
	}
	var turns []artifact.RealtimeTurn
	var starts []time.Time
	if res != nil {
		turns, starts = res.Turns, res.TurnStarts
	}
	measured := len(turns) > 0
	if !measured {
		turns = []artifact.RealtimeTurn{{Turn: 1}}
	}
	first := len(s.rows)
	out := make([]turnRow, 0, len(turns))
	for k, tu := range turns {
		index := first + k + 1
		start := r.Start
		rec := artifact.Request{Index: index, Ramp: r.Ramp}
		if k < len(starts) && !ss.called.IsZero() {
			// The session was called at r.Start: its turns' starts are
			// on the level's clock from there.
			start = r.Start + starts[k].Sub(ss.called)
			rec.T0UnixMs = artifact.Num(unixMs(starts[k]))
		}
		rec.StartMs, rec.RunMs = artifact.Ms(msOf(start)), artifact.Ms(msOf(s.runOffset+start))
		rec.Warmup = index <= o.warmup || msOf(r.Scheduled) < o.warmupMs || r.Ramp && !o.rampKeep
		if k == 0 {
			rec.ScheduledMs, rec.QueueMs, rec.LateMs = artifact.Ms(msOf(r.Scheduled)), artifact.Ms(msOf(r.Began-r.Scheduled)), artifact.Ms(msOf(r.Began-r.Admitted))
		}
		if measured {
			turnFigures(&rec, tu)
		}
		if ss.err != nil && k == len(turns)-1 {
			kind, status := errorKind(ss.err), 0
			if failed != nil {
				kind, status = failed.Kind, failed.Status
			}
			msg := ss.err.Error()
			rec.ErrorKind, rec.Error, rec.ErrorStatus = &kind, &msg, status
		}
		out = append(out, turnRow{turn: k + 1, Request: rec})
	}
	return out
}

// turnFigures puts a turn's figures in its row.
func turnFigures(rec *artifact.Request, tu artifact.RealtimeTurn) {
	ms := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		return artifact.Ms(*p)
	}
	rec.CallerAudioMs, rec.AudioMs = artifact.Ms(tu.AudioMs), artifact.Ms(tu.AnswerAudioMs)
	rec.FirstAudioMs, rec.UnderrunMs, rec.MouthToEarMs = ms(tu.FirstAudioMs), ms(tu.UnderrunMs), ms(tu.MouthToEarMs)
	rec.TotalMs, rec.AudioAfterCancelMs = ms(tu.DoneMs), ms(tu.AudioAfterCancelMs)
	if tu.SpeechStoppedMs != nil {
		rec.EndpointingMs = artifact.Ms(*tu.SpeechStoppedMs - tu.SpeechEndMs)
	}
}

// tick shows the sessions' progress on a terminal: turns done, sessions
// in flight, failed turns, the p50 mouth to ear so far.
func (s *sessions) tick(elapsed time.Duration, inFlight int) {
	p := &s.progress
	if p.w == nil {
		f, ok := s.h.Stderr.(*os.File)
		if !ok || !isTerminal(f) {
			return
		}
		p.w = f
	}
	errs := 0
	var ear []float64
	for _, d := range s.rows {
		if d.ErrorKind != nil {
			errs++
		}
		if d.MouthToEarMs != nil {
			ear = append(ear, *d.MouthToEarMs)
		}
	}
	p50 := "-"
	if len(ear) > 0 {
		sort.Float64s(ear)
		p50 = fmt.Sprintf("%.1f ms", interval.PercentileOf(ear, 50))
	}
	fmt.Fprintf(p.w, "\r\x1b[K%5.1f s: %d turns done, %d sessions in flight, %d errors, p50 mouth to ear %s", elapsed.Seconds(), len(s.rows), inFlight, errs, p50)
	p.shown = true
}

// roundErr is a round's error: ctx's when it was stopped, Host.Written's
// for a record that could not be written, Host.Protect's (err) for the
// experiment's failure, the loop's otherwise (none when no request
// started).
func roundErr(ctx context.Context, h *Host, err, loopErr error) error {
	var failedWrite *writeFailed
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return err
	case errors.As(loopErr, &failedWrite):
		return h.Written(failedWrite.err)
	case loopErr != nil && loopErr != load.ErrNoRequests:
		return fmt.Errorf("load: %w", loopErr)
	}
	return nil
}
