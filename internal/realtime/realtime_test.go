package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/realtime/realtimetest"
)

const testKey = "sk-test-secret-4242"

// toneClip is leadMs of silence, toneMs of a 440 Hz tone at a quarter of
// full scale, tailMs of silence, at rate.
func toneClip(rate, leadMs, toneMs, tailMs int) *callaudio.Clip {
	n := func(ms int) int { return rate * ms / 1000 }
	s := make([]int16, n(leadMs)+n(toneMs)+n(tailMs))
	for i := n(leadMs); i < n(leadMs)+n(toneMs); i++ {
		s[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return &callaudio.Clip{Samples: s, Rate: rate, Text: "hello"}
}

func testCfg(base string) Config {
	return Config{Endpoint: &endpoint.Endpoint{Base: base, Key: testKey, Model: "gpt-realtime"},
		Voice: "alloy", Instructions: "Be brief.", FrameMs: 20, TurnTimeout: 5 * time.Second, KeepEvents: true}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// us is v to the microsecond, as the records hold times.
func us(v float64) float64 { return math.Round(v*1000) / 1000 }

func ptrF(v float64) *float64 { return &v }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// checkPacing holds the frames the fake received to the session's
// schedule Start + i*FrameMs: none arrived before its time, and they do
// not drift from it: the median lateness of the last third is within one
// frame of the first third's (a pacer that slept a frame after each
// write would add its writes' time every frame). Medians, because a busy
// machine may hold a frame or two back now and then.
func checkPacing(t *testing.T, res *Result, s realtimetest.Session, frameMs int) {
	t.Helper()
	frames := s.Appends()
	n := len(frames)
	if n < 30 {
		t.Fatalf("the fake received %d frames", n)
	}
	late := make([]float64, n)
	for i, f := range frames {
		sched := float64(i * frameMs)
		recv := msOf(f.At.Sub(res.Start))
		if recv < sched {
			t.Fatalf("frame %d due at %.3f ms arrived at %.3f ms: early", i, sched, recv)
		}
		if f.Samples != DefaultRate*frameMs/1000 {
			t.Fatalf("frame %d of %d samples, want whole frames of %d ms at %d Hz", i, f.Samples, frameMs, DefaultRate)
		}
		late[i] = recv - sched
	}
	first, last := median(late[:n/3]), median(late[n-n/3:])
	if last-first >= float64(frameMs) {
		t.Fatalf("frames' median lateness went from %.3f ms (first third) to %.3f ms (last third): drift of more than one frame (%d ms)", first, last, frameMs)
	}
}

// wantUnderrun is the silence a speaker playing the turn's audio deltas
// (its events) at real time from the first would have heard, each delta
// durMs(i) long: what underrun_ms must be.
func wantUnderrun(evs []artifact.RealtimeEvent, durMs func(i int) float64) (float64, int) {
	var sum, end float64
	n := 0
	for _, e := range evs {
		if e.Type != "response.output_audio.delta" && e.Type != "response.audio.delta" {
			continue
		}
		if n > 0 && e.AtMs > end {
			sum += e.AtMs - end
		}
		end = math.Max(end, e.AtMs) + durMs(n)
		if n == 0 {
			end = e.AtMs + durMs(0)
		}
		n++
	}
	return sum, n
}

func fakeSession(t *testing.T, f *realtimetest.Server) realtimetest.Session {
	t.Helper()
	ss := f.Sessions()
	if len(ss) != 1 {
		t.Fatalf("the fake has %d sessions", len(ss))
	}
	return ss[0]
}

// Both dialects: the dialect found, session.update in its shape, the
// frames paced, every figure of each turn present and in order, mouth to
// ear the first audio less the speech end, the server's audio end on the
// turn clock where the speech ended, the time to first audio as the
// fake's schedule made it, underruns as a speaker would hear them.
func TestDialects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		beta    bool
		dialect string
		pace    time.Duration
	}{
		{"ga", false, DialectGA, 20 * time.Millisecond},
		{"beta", true, DialectBeta, 150 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &realtimetest.Server{Beta: tc.beta, Delay: 60 * time.Millisecond, Deltas: 4, DeltaMs: 100, Pace: tc.pace,
				Transcript: "hello there my friend", Text: "hello there my friend"}
			cfg := testCfg(fake.Start(t))
			turns := []Turn{{Clip: toneClip(DefaultRate, 100, 400, 100)}, {Clip: toneClip(16000, 60, 300, 100)}}
			res, err := Run(context.Background(), cfg, turns)
			if err != nil {
				t.Fatal(err)
			}
			s := fakeSession(t, fake)
			if res.Dialect != tc.dialect || res.Rate != DefaultRate || len(res.Turns) != 2 || len(res.TurnStarts) != 2 || !res.TurnStarts[0].Equal(res.Start) {
				t.Fatalf("dialect %q rate %d, %d turns, starts %v (session %v)", res.Dialect, res.Rate, len(res.Turns), res.TurnStarts, res.Start)
			}
			if s.Query != "model=gpt-realtime" || s.Auth != "Bearer "+testKey {
				t.Fatalf("upgrade query %q auth %q", s.Query, s.Auth)
			}
			checkUpdate(t, s, tc.beta)
			for _, ev := range s.Events {
				if ev.Type != "session.update" && ev.Type != "input_audio_buffer.append" {
					t.Fatalf("the client sent %s under the server's VAD", ev.Type)
				}
			}
			checkPacing(t, res, s, cfg.FrameMs)
			if len(s.Answers) != 2 {
				t.Fatalf("the fake answered %d times", len(s.Answers))
			}
			for k, r := range res.Turns {
				clip := turns[k].Clip.Resample(DefaultRate)
				if r.Turn != k+1 || r.Said != "hello" || r.AudioMs != us(clip.DurationMs()) || r.Status != "completed" {
					t.Fatalf("turn %d: %+v", k+1, r)
				}
				for name, v := range map[string]*float64{"speech_started": r.SpeechStartedMs, "speech_stopped": r.SpeechStoppedMs,
					"server_audio_start": r.ServerAudioStartMs, "server_audio_end": r.ServerAudioEndMs, "first_transcript": r.FirstTranscriptMs,
					"first_text": r.FirstTextMs, "first_audio": r.FirstAudioMs, "mouth_to_ear": r.MouthToEarMs, "underrun": r.UnderrunMs, "done": r.DoneMs} {
					if v == nil {
						t.Fatalf("turn %d: no %s_ms", k+1, name)
					}
				}
				order := []float64{0, *r.SpeechStartedMs, r.SpeechEndMs, *r.SpeechStoppedMs, *r.FirstAudioMs, *r.FirstTranscriptMs, *r.DoneMs}
				if !sort.Float64sAreSorted(order) || *r.FirstTextMs < *r.FirstAudioMs || *r.FirstTextMs > *r.DoneMs {
					t.Fatalf("turn %d: started, speech end, stopped, first audio, first transcript, done out of order: %v (first text %v)", k+1, order, *r.FirstTextMs)
				}
				if *r.MouthToEarMs != us(*r.FirstAudioMs-r.SpeechEndMs) {
					t.Fatalf("turn %d: mouth to ear %v, first audio %v - speech end %v", k+1, *r.MouthToEarMs, *r.FirstAudioMs, r.SpeechEndMs)
				}
				// The fake's VAD said the speech ended where the audio
				// does: its audio_end_ms is the end of the frame whose
				// send stamp is the speech end.
				if *r.ServerAudioEndMs != r.SpeechEndMs || *r.ServerAudioStartMs > r.SpeechEndMs {
					t.Fatalf("turn %d: server audio start %v end %v, speech end %v", k+1, *r.ServerAudioStartMs, *r.ServerAudioEndMs, r.SpeechEndMs)
				}
				if r.AnswerAudioMs != 400 || strings.TrimSpace(r.Transcript) != fake.Transcript || r.Text != fake.Text {
					t.Fatalf("turn %d: answer %v ms, transcript %q, text %q", k+1, r.AnswerAudioMs, r.Transcript, r.Text)
				}
				// Time to first audio: the fake sent its first delta at
				// a moment of its own; the client's mouth to ear is that
				// moment less the speech end, plus the delta's way over
				// loopback, under a frame.
				a := s.Answers[k]
				sent := msOf(a.FirstAudioAt.Sub(res.TurnStarts[k].Add(time.Duration(r.SpeechEndMs * float64(time.Millisecond)))))
				if got := *r.MouthToEarMs - sent; got < -0.001 || got > float64(cfg.FrameMs) {
					t.Fatalf("turn %d: mouth to ear %.3f ms; the fake sent its first audio %.3f ms after the speech end", k+1, *r.MouthToEarMs, sent)
				}
				if a.FirstAudioAt.Sub(a.StoppedAt) < fake.Delay {
					t.Fatalf("turn %d: the fake's first audio %v after its speech_stopped, its delay %v", k+1, a.FirstAudioAt.Sub(a.StoppedAt), fake.Delay)
				}
				want, n := wantUnderrun(r.Events, func(int) float64 { return 100 })
				if n != 4 || math.Abs(*r.UnderrunMs-want) > 0.01 {
					t.Fatalf("turn %d: underrun %v ms, the speaker of its %d deltas heard %.3f ms of silence", k+1, *r.UnderrunMs, n, want)
				}
				if tc.beta && *r.UnderrunMs <= 0 {
					t.Fatalf("turn %d: deltas of 100 ms every %v, no underrun", k+1, tc.pace)
				}
			}
			// The second turn began after the first's answer ended, on
			// the same schedule of frames: silence between them.
			gap := msOf(res.TurnStarts[1].Sub(res.TurnStarts[0]))
			if gap < *res.Turns[0].DoneMs {
				t.Fatalf("turn 2 began %.3f ms into turn 1, before its response.done at %.3f ms", gap, *res.Turns[0].DoneMs)
			}
			speechFrames := turns[0].Clip.Frames(20) + turns[1].Clip.Resample(DefaultRate).Frames(20)
			silent := 0
			for _, f := range s.Appends() {
				if !f.Speech {
					silent++
				}
			}
			if len(s.Appends()) <= speechFrames || silent == 0 {
				t.Fatalf("%d frames for clips of %d frames, %d silent", len(s.Appends()), speechFrames, silent)
			}
		})
	}
}

// checkUpdate holds the session.update the fake received to the
// dialect's shape.
func checkUpdate(t *testing.T, s realtimetest.Session, beta bool) {
	t.Helper()
	ups := s.Of("session.update")
	if len(ups) != 1 {
		t.Fatalf("%d session.update", len(ups))
	}
	var u struct {
		Session map[string]any `json:"session"`
	}
	if err := json.Unmarshal(ups[0].Raw, &u); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(u.Session)
	got := string(b)
	want := `{"audio":{"input":{"format":{"rate":24000,"type":"audio/pcm"},"turn_detection":{"type":"server_vad"}},"output":{"format":{"rate":24000,"type":"audio/pcm"},"voice":"alloy"}},"instructions":"Be brief.","type":"realtime"}`
	if beta {
		want = `{"input_audio_format":"pcm16","instructions":"Be brief.","output_audio_format":"pcm16","turn_detection":{"type":"server_vad"},"voice":"alloy"}`
	}
	if got != want {
		t.Fatalf("session.update's session\n got %s\nwant %s", got, want)
	}
}

// A barge-in: BargeAfterMs after the first audio delta the next turn's
// audio starts; at the server's speech_started the client cancels and
// truncates at the audio played; the audio the fake sends after the
// cancel is counted to the byte; the next turn is answered.
func TestBargeIn(t *testing.T) {
	fake := &realtimetest.Server{Delay: 40 * time.Millisecond, Deltas: 30, DeltaMs: 100, AfterCancelMs: 400, Transcript: "a long answer"}
	cfg := testCfg(fake.Start(t))
	barge := 300.0
	turns := []Turn{{Clip: toneClip(DefaultRate, 100, 400, 100), BargeAfterMs: &barge}, {Clip: toneClip(DefaultRate, 100, 400, 100)}}
	res, err := Run(context.Background(), cfg, turns)
	if err != nil {
		t.Fatal(err)
	}
	s := fakeSession(t, fake)
	if len(res.Turns) != 2 || len(s.Answers) != 2 {
		t.Fatalf("%d turns, %d answers", len(res.Turns), len(s.Answers))
	}
	r := res.Turns[0]
	for name, v := range map[string]*float64{"barge_onset": r.BargeOnsetMs, "onset_to_speech_started": r.OnsetToSpeechStartedMs,
		"cancel": r.CancelMs, "played": r.PlayedMs, "cancel_to_last_audio": r.CancelToLastAudioMs, "audio_after_cancel": r.AudioAfterCancelMs, "first_audio": r.FirstAudioMs} {
		if v == nil {
			t.Fatalf("no %s_ms: %+v", name, r)
		}
	}
	onset := us(msOf(res.TurnStarts[1].Sub(res.TurnStarts[0])))
	if *r.BargeOnsetMs != onset || *r.BargeOnsetMs < *r.FirstAudioMs+barge {
		t.Fatalf("barge onset %v ms; turn 2 began at %v ms, the first audio at %v ms + %v", *r.BargeOnsetMs, onset, *r.FirstAudioMs, barge)
	}
	if r.CancelOn != "speech_started" || *r.CancelMs < *r.BargeOnsetMs+*r.OnsetToSpeechStartedMs-0.001 {
		t.Fatalf("cancel on %q at %v ms; speech_started at %v + %v ms", r.CancelOn, *r.CancelMs, *r.BargeOnsetMs, *r.OnsetToSpeechStartedMs)
	}
	cancels, truncs := s.Of("response.cancel"), s.Of("conversation.item.truncate")
	if len(cancels) != 1 || len(truncs) != 1 || s.Answers[0].CancelAt.IsZero() {
		t.Fatalf("the fake read %d cancels, %d truncates", len(cancels), len(truncs))
	}
	var tr struct {
		ItemID       string   `json:"item_id"`
		ContentIndex *int     `json:"content_index"`
		AudioEndMs   *float64 `json:"audio_end_ms"`
	}
	if err := json.Unmarshal(truncs[0].Raw, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.ItemID != "item_out_1" || tr.ContentIndex == nil || *tr.ContentIndex != 0 || tr.AudioEndMs == nil || *tr.AudioEndMs != *r.PlayedMs {
		t.Fatalf("truncate %s; played %v ms", truncs[0].Raw, *r.PlayedMs)
	}
	// Played at real time from the first delta: no more than the time
	// since it, and the deltas came at real time, so some.
	if *r.PlayedMs <= 0 || *r.PlayedMs > *r.CancelMs-*r.FirstAudioMs {
		t.Fatalf("played %v ms by the cancel at %v ms, first audio at %v ms", *r.PlayedMs, *r.CancelMs, *r.FirstAudioMs)
	}
	after := float64(s.Answers[0].AfterCancelBytes) / 2 / DefaultRate * 1000
	if *r.AudioAfterCancelMs != float64(fake.AfterCancelMs) || *r.AudioAfterCancelMs != after || *r.CancelToLastAudioMs <= 0 {
		t.Fatalf("audio after the cancel %v ms (the fake sent %v ms, set %d ms), last %v ms after it", *r.AudioAfterCancelMs, after, fake.AfterCancelMs, *r.CancelToLastAudioMs)
	}
	if total := float64(s.Answers[0].AudioBytes) / 2 / DefaultRate * 1000; r.AnswerAudioMs != total || r.Status != "cancelled" || r.DoneMs == nil {
		t.Fatalf("answer %v ms (the fake sent %v), status %q done %v", r.AnswerAudioMs, total, r.Status, r.DoneMs)
	}
	var sentCancel, sentTrunc bool
	for _, e := range r.Events {
		sentCancel = sentCancel || (e.Sent && e.Type == "response.cancel" && e.AtMs == *r.CancelMs)
		sentTrunc = sentTrunc || (e.Sent && e.Type == "conversation.item.truncate")
	}
	if !sentCancel || !sentTrunc {
		t.Fatalf("events %+v lack the cancel and the truncate sent", r.Events)
	}
	n := res.Turns[1]
	if n.FirstAudioMs == nil || n.MouthToEarMs == nil || n.Status != "completed" || n.BargeOnsetMs != nil {
		t.Fatalf("turn 2 %+v", n)
	}
}

func failCfg(t *testing.T, f *realtimetest.Server) Config {
	cfg := testCfg(f.Start(t))
	cfg.TurnTimeout = 400 * time.Millisecond
	return cfg
}

func asError(t *testing.T, err error, kind string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != kind {
		t.Fatalf("error %v, want kind %s", err, kind)
	}
	if strings.Contains(e.Msg, testKey) || strings.Contains(e.Error(), testKey) {
		t.Fatalf("the key in %q", e.Msg)
	}
	return e
}

func twoTurns() []Turn {
	return []Turn{{Clip: toneClip(DefaultRate, 60, 300, 60)}, {Clip: toneClip(DefaultRate, 60, 300, 60)}}
}

// An error event fails the session as realtime_error: the turns measured
// kept, the failed one last with its stamps; a key the server echoed is
// never in the message.
func TestErrorEvent(t *testing.T) {
	fake := &realtimetest.Server{ErrorOn: 2, EchoAuth: true, Deltas: 2, Pace: 10 * time.Millisecond}
	_, err := Run(context.Background(), failCfg(t, fake), twoTurns())
	e := asError(t, err, KindServer)
	if !strings.Contains(e.Msg, "the model failed") || e.Partial == nil || len(e.Partial.Turns) != 2 {
		t.Fatalf("error %q partial %+v", e.Msg, e.Partial)
	}
	if p := e.Partial.Turns; p[0].Status != "completed" || p[1].SpeechStoppedMs == nil || p[1].FirstAudioMs != nil {
		t.Fatalf("partial turns %+v", p)
	}
}

// A socket closed mid-response is realtime_dropped.
func TestDropped(t *testing.T) {
	fake := &realtimetest.Server{DropOn: 1}
	_, err := Run(context.Background(), failCfg(t, fake), twoTurns())
	e := asError(t, err, KindDropped)
	if e.Partial == nil || len(e.Partial.Turns) != 1 || e.Partial.Turns[0].FirstAudioMs == nil || e.Partial.Turns[0].DoneMs != nil {
		t.Fatalf("partial %+v", e.Partial)
	}
}

// A server that never says the caller stopped fails the turn as
// realtime_no_speech_stopped, TurnTimeout after its speech end, while
// the silence frames go on.
func TestNoSpeechStopped(t *testing.T) {
	fake := &realtimetest.Server{NoSpeechStopped: true}
	cfg := failCfg(t, fake)
	_, err := Run(context.Background(), cfg, twoTurns())
	e := asError(t, err, KindNoSpeechStopped)
	if e.Partial == nil || len(e.Partial.Turns) != 1 || e.Partial.Turns[0].SpeechStartedMs == nil || e.Partial.Turns[0].SpeechStoppedMs != nil {
		t.Fatalf("partial %+v", e.Partial)
	}
	// Silence frames kept leaving until the turn's time ran out: the
	// fake read one due within three frames of it (the frame due last
	// may lose its race with the deadline, and the fake may not have read
	// the one before yet when Run returns).
	s := fakeSession(t, fake)
	fr := s.Appends()
	last := msOf(fr[len(fr)-1].At.Sub(e.Partial.Start))
	if end := e.Partial.Turns[0].SpeechEndMs + msOf(cfg.TurnTimeout); last < end-3*float64(cfg.FrameMs) {
		t.Fatalf("the last frame arrived at %.3f ms, the turn's time ran out at %.3f ms", last, end)
	}
}

// A refused upgrade: 401 and 403 are realtime_unauthorized, another
// status realtime_connect, with the status.
func TestRefusedUpgrade(t *testing.T) {
	for status, kind := range map[int]string{401: KindAuth, 403: KindAuth, 503: KindConnect} {
		fake := &realtimetest.Server{Refuse: status}
		_, err := Run(context.Background(), failCfg(t, fake), twoTurns())
		if e := asError(t, err, kind); e.Status != status || e.Partial != nil {
			t.Fatalf("status %d: %+v", status, e)
		}
	}
}

// The error of an unreadable message quotes it scrubbed.
func TestBadDataScrubbed(t *testing.T) {
	s := newSession(Config{Endpoint: &endpoint.Endpoint{Base: "ws://127.0.0.1:1", Key: testKey}}, nil)
	_, e := s.parse([]byte(`{"type":"response.audio.delta","delta":"%%%` + testKey + `"}`))
	if e == nil || e.Kind != KindBadData || strings.Contains(e.Msg, testKey) {
		t.Fatalf("%+v", e)
	}
}

// A response that never ends fails the turn as realtime_timeout.
func TestNoResponseDone(t *testing.T) {
	fake := &realtimetest.Server{StallOn: 1}
	_, err := Run(context.Background(), failCfg(t, fake), twoTurns())
	e := asError(t, err, KindTimeout)
	if e.Partial == nil || len(e.Partial.Turns) != 1 || e.Partial.Turns[0].SpeechStoppedMs == nil || e.Partial.Turns[0].DoneMs != nil {
		t.Fatalf("partial %+v", e.Partial)
	}
}

// A barge-in the server does not hear: the client cancels CancelAfter
// after the onset on its own (cancel_on "timeout"), truncating at the
// audio played by then; the next turn is answered once the server hears
// it.
func TestBargeInCancelAfter(t *testing.T) {
	fake := &realtimetest.Server{Delay: 40 * time.Millisecond, Deltas: 30, DeltaMs: 100, AfterCancelMs: 200, DeafWhileAnswering: true}
	cfg := testCfg(fake.Start(t))
	cfg.CancelAfter = 150 * time.Millisecond
	barge := 200.0
	turns := []Turn{{Clip: toneClip(DefaultRate, 100, 300, 100), BargeAfterMs: &barge}, {Clip: toneClip(DefaultRate, 0, 900, 100)}}
	res, err := Run(context.Background(), cfg, turns)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Turns[0]
	if r.BargeOnsetMs == nil || r.CancelMs == nil || r.PlayedMs == nil || r.AudioAfterCancelMs == nil {
		t.Fatalf("turn 1 %+v", r)
	}
	if r.CancelOn != "timeout" || *r.CancelMs < *r.BargeOnsetMs+msOf(cfg.CancelAfter) {
		t.Fatalf("cancel on %q at %v ms, the onset at %v ms + %v", r.CancelOn, *r.CancelMs, *r.BargeOnsetMs, cfg.CancelAfter)
	}
	if r.OnsetToSpeechStartedMs != nil && *r.BargeOnsetMs+*r.OnsetToSpeechStartedMs < *r.CancelMs {
		t.Fatalf("speech_started %v ms after the onset, before the cancel at %v ms", *r.OnsetToSpeechStartedMs, *r.CancelMs)
	}
	truncs := fakeSession(t, fake).Of("conversation.item.truncate")
	var tr struct {
		AudioEndMs float64 `json:"audio_end_ms"`
	}
	if len(truncs) != 1 || json.Unmarshal(truncs[0].Raw, &tr) != nil || tr.AudioEndMs != *r.PlayedMs {
		t.Fatalf("truncates %d, played %v", len(truncs), *r.PlayedMs)
	}
	if n := res.Turns[1]; n.FirstAudioMs == nil || n.Status != "completed" {
		t.Fatalf("turn 2 %+v", n)
	}
}

// A server that never sends response.created: its deltas and
// response.done still make the turn's answer.
func TestNoResponseCreated(t *testing.T) {
	fake := &realtimetest.Server{NoResponseCreated: true, Deltas: 2, Pace: 10 * time.Millisecond}
	res, err := Run(context.Background(), failCfg(t, fake), twoTurns())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Turns {
		if r.FirstAudioMs == nil || r.AnswerAudioMs != 200 || r.Status != "completed" {
			t.Fatalf("turn %+v", r)
		}
	}
}

// A barge-in into an answer whose response had ended: still playing, the
// client truncates at the audio played and sends no cancel; played out,
// the caller just speaks next, no barge-in at all. Either way the next
// turn starts BargeAfterMs after the first audio, not before.
func TestBargeInAfterTheResponse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		barge   float64
		playing bool
	}{{"still playing", 150, true}, {"played out", 1500, false}} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &realtimetest.Server{Deltas: 10, DeltaMs: 100, Pace: 5 * time.Millisecond}
			cfg := testCfg(fake.Start(t))
			barge := tc.barge
			turns := []Turn{{Clip: toneClip(DefaultRate, 60, 300, 60), BargeAfterMs: &barge}, {Clip: toneClip(DefaultRate, 100, 300, 60)}}
			res, err := Run(context.Background(), cfg, turns)
			if err != nil {
				t.Fatal(err)
			}
			r, s := res.Turns[0], fakeSession(t, fake)
			if r.Status != "completed" || r.DoneMs == nil {
				t.Fatalf("turn 1 %+v", r)
			}
			if next := msOf(res.TurnStarts[1].Sub(res.TurnStarts[0])); next < *r.FirstAudioMs+barge {
				t.Fatalf("turn 2 began %.3f ms into turn 1, its first audio at %v ms + %v", next, *r.FirstAudioMs, barge)
			}
			if len(s.Of("response.cancel")) != 0 {
				t.Fatal("a cancel sent for a response that had ended")
			}
			truncs := s.Of("conversation.item.truncate")
			if !tc.playing {
				if r.BargeOnsetMs != nil || r.CancelMs != nil || len(truncs) != 0 {
					t.Fatalf("a barge-in after the answer played out: %+v, %d truncates", r, len(truncs))
				}
				return
			}
			if r.BargeOnsetMs == nil || r.CancelMs == nil || r.PlayedMs == nil || len(truncs) != 1 || *r.AudioAfterCancelMs != 0 || *r.CancelToLastAudioMs != 0 {
				t.Fatalf("turn 1 %+v, %d truncates", r, len(truncs))
			}
			if *r.PlayedMs >= r.AnswerAudioMs || *r.PlayedMs > *r.CancelMs-*r.FirstAudioMs {
				t.Fatalf("played %v ms of %v by the cut at %v ms (first audio %v ms)", *r.PlayedMs, r.AnswerAudioMs, *r.CancelMs, *r.FirstAudioMs)
			}
		})
	}
}
