package stt

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stt/stttest"
)

// toneClip is leadMs of silence, toneMs of a 440 Hz tone at a quarter of
// full scale, tailMs of silence, at rate.
func toneClip(rate, leadMs, toneMs, tailMs int) *callaudio.Clip {
	n := func(ms int) int { return rate * ms / 1000 }
	s := make([]int16, n(leadMs)+n(toneMs)+n(tailMs))
	for i := n(leadMs); i < n(leadMs)+n(toneMs); i++ {
		s[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
	}
	return &callaudio.Clip{Samples: s, Rate: rate, Text: "hello world"}
}

func streamCfg(api API, base string) Config {
	return Config{Endpoint: &endpoint.Endpoint{Base: base, Key: "sk-test-secret"}, API: api,
		FrameMs: 20, Timeout: 5 * time.Second, KeepFrames: true}
}

// fakeFrames waits until a fake received n frames (the client's writes
// have returned; the fake's reads may still be on their way) and
// returns them.
func fakeFrames(t *testing.T, sessions func() []stttest.Session, n int) []stttest.Frame {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ss := sessions()
		if len(ss) == 1 && len(ss[0].Frames) >= n {
			return ss[0].Frames
		}
		if time.Now().After(deadline) {
			got := -1
			if len(ss) == 1 {
				got = len(ss[0].Frames)
			}
			t.Fatalf("the fake has %d sessions, %d frames; the client sent %d", len(ss), got, n)
		}
	}
}

// checkPacing holds the client's send stamps and the fake's receive
// stamps to the schedule Start + i*FrameMs: no frame leaves or arrives
// before its time, and the frames do not drift from it: the median
// lateness of the turn's last third of frames is within one frame of
// the first third's (a pacer that slept a frame after each write would
// add its writes' time every frame). Medians, because a busy machine
// may hold a frame or two back now and then, as it would a phone line.
func checkPacing(t *testing.T, res *Result, frames []stttest.Frame, frameMs int) {
	t.Helper()
	n := len(res.Frames)
	if n < 9 || len(frames) < n {
		t.Fatalf("client kept %d frames, fake received %d", n, len(frames))
	}
	late := make([]float64, n)
	for i, send := range res.Frames {
		sched := float64(i * frameMs)
		recv := float64(frames[i].At.Sub(res.Start)) / float64(time.Millisecond)
		if send < sched || recv < sched {
			t.Fatalf("frame %d due at %.3f ms was sent at %.3f ms and received at %.3f ms: early", i, sched, send, recv)
		}
		late[i] = send - sched
	}
	first, last := median(late[:n/3]), median(late[n-n/3:])
	if last-first >= float64(frameMs) {
		t.Fatalf("frames' median lateness went from %.3f ms (first third) to %.3f ms (last third): drift of more than one frame (%d ms)", first, last, frameMs)
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func TestRealtimePacingAndSilence(t *testing.T) {
	fake := &stttest.Realtime{Delay: 50 * time.Millisecond}
	base := fake.Start(t)
	clip := toneClip(RealtimeRate, 100, 600, 100)
	res, err := Transcribe(context.Background(), streamCfg(APIRealtime, base), clip)
	if err != nil {
		t.Fatal(err)
	}
	frames := fakeFrames(t, fake.Sessions, len(res.Frames))
	checkPacing(t, res, frames, 20)
	n := clip.Frames(20)
	if res.SilenceFrames == 0 || len(res.Frames) != n+res.SilenceFrames {
		t.Fatalf("%d frames kept for a clip of %d frames and %d silence frames after it", len(res.Frames), n, res.SilenceFrames)
	}
	for i := n; i < len(res.Frames); i++ {
		if frames[i].Speech || frames[i].Samples != clip.FrameSamples(20) {
			t.Fatalf("frame %d after the clip: %+v, want a whole frame of silence", i, frames[i])
		}
	}
	if res.SentMs != res.Frames[n-1] || res.SpeechEndMs != res.Frames[clip.SpeechEndFrame(20)] {
		t.Fatalf("sent %.3f speech end %.3f, want the send stamps of frames %d (%.3f) and %d (%.3f)",
			res.SentMs, res.SpeechEndMs, n-1, res.Frames[n-1], clip.SpeechEndFrame(20), res.Frames[clip.SpeechEndFrame(20)])
	}
}

// checkDelay holds a turn's measured delay from the speech end to the
// final transcript to the fake's own, as it recorded it on the same
// clock: from its receiving the last speech frame to its sending the
// final transcript. The client's span holds the fake's, less at most the
// moments between the fake's read of the last speech frame and the
// client's stamp after its write returned (under one frame), and its
// final stamp is not before the fake sent it.
func checkDelay(t *testing.T, res *Result, s stttest.Session, frameMs int) {
	t.Helper()
	own := float64(s.FinalDelay()) / float64(time.Millisecond)
	if got := res.FinalMs - res.SpeechEndMs; got < own-float64(frameMs) {
		t.Fatalf("final %.3f - speech end %.3f = %.3f ms, the fake's own delay %.3f ms", res.FinalMs, res.SpeechEndMs, got, own)
	}
	if sent := float64(s.FinalAt.Sub(res.Start)) / float64(time.Millisecond); res.FinalMs < sent {
		t.Fatalf("final stamped at %.3f ms, before the fake sent it at %.3f ms", res.FinalMs, sent)
	}
}

func TestRealtimeDelayAfterSpeechEnd(t *testing.T) {
	fake := &stttest.Realtime{Delay: 300 * time.Millisecond, Text: "what time is it"}
	base := fake.Start(t)
	cfg := streamCfg(APIRealtime, base)
	cfg.Language = "en"
	res, err := Transcribe(context.Background(), cfg, toneClip(RealtimeRate, 100, 500, 100))
	if err != nil {
		t.Fatal(err)
	}
	s := fake.Sessions()[0]
	checkDelay(t, res, s, 20)
	if res.Text != "what time is it" || res.API != APIRealtime || res.Dialect != DialectGA || res.Rate != RealtimeRate {
		t.Fatalf("result %+v", res)
	}
	if res.SpeechStartedMs == nil || res.SpeechStoppedMs == nil || *res.SpeechStoppedMs < res.SpeechEndMs {
		t.Fatalf("speech started %v stopped %v, speech end %.3f", res.SpeechStartedMs, res.SpeechStoppedMs, res.SpeechEndMs)
	}
	if res.ServerAudioEndMs == nil || *res.ServerAudioEndMs != s.AudioEndMs || res.ServerAudioStartMs == nil || *res.ServerAudioStartMs != 100 {
		t.Fatalf("server audio start %v end %v, the fake said 100 and %v", res.ServerAudioStartMs, res.ServerAudioEndMs, s.AudioEndMs)
	}
	if res.FirstPartialMs == nil || *res.FirstPartialMs > res.FinalMs || *res.FirstPartialMs < *res.SpeechStoppedMs {
		t.Fatalf("first partial %v, stopped %v, final %.3f", res.FirstPartialMs, res.SpeechStoppedMs, res.FinalMs)
	}
	if s.Update != "session.update" || s.Model != RealtimeModel || s.Query != "intent=transcription" || s.Auth != "Bearer sk-test-secret" {
		t.Fatalf("the fake saw %+v", s)
	}
}

func TestRealtimeBetaDialect(t *testing.T) {
	fake := &stttest.Realtime{Beta: true}
	res, err := Transcribe(context.Background(), streamCfg(APIRealtime, fake.Start(t)), toneClip(RealtimeRate, 0, 200, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Dialect != DialectBeta || fake.Sessions()[0].Update != "transcription_session.update" {
		t.Fatalf("dialect %q, update %q", res.Dialect, fake.Sessions()[0].Update)
	}
}

// A server whose VAD never ends the turn gets a commit when the silence
// runs out, and the transcript that follows is the final one.
func TestRealtimeCommitsWhenVADNeverStops(t *testing.T) {
	fake := &stttest.Realtime{NoVAD: true, Delay: 20 * time.Millisecond}
	cfg := streamCfg(APIRealtime, fake.Start(t))
	cfg.SilenceMs = 200
	res, err := Transcribe(context.Background(), cfg, toneClip(RealtimeRate, 0, 300, 0))
	if err != nil {
		t.Fatal(err)
	}
	s := fake.Sessions()[0]
	if res.SilenceFrames != 10 || len(s.Commits) != 1 || res.SpeechStoppedMs != nil {
		t.Fatalf("%d silence frames, %d commits, stopped %v", res.SilenceFrames, len(s.Commits), res.SpeechStoppedMs)
	}
	commit := float64(s.Commits[0].At.Sub(res.Start)) / float64(time.Millisecond)
	if commit < res.Frames[len(res.Frames)-1] || res.FinalMs < commit {
		t.Fatalf("commit received at %.3f, last silence frame sent at %.3f, final at %.3f", commit, res.Frames[len(res.Frames)-1], res.FinalMs)
	}
}

// A commit the server finds empty (its VAD committed the audio while the
// commit was on its way) does not fail the turn: the transcript comes.
func TestRealtimeEmptyCommitIsNoFailure(t *testing.T) {
	fake := &stttest.Realtime{NoVAD: true, EmptyCommit: true}
	cfg := streamCfg(APIRealtime, fake.Start(t))
	cfg.SilenceMs = 100
	res, err := Transcribe(context.Background(), cfg, toneClip(RealtimeRate, 0, 200, 0))
	if err != nil || res.Text != "hello world" {
		t.Fatalf("result %+v, error %v", res, err)
	}
}

// sttError is err as an *Error of kind, with the status.
func sttError(t *testing.T, err error, kind string, status int) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != kind || e.Status != status {
		t.Fatalf("error %v (%#v), want kind %s status %d", err, e, kind, status)
	}
	if strings.Contains(e.Msg, "sk-test-secret") {
		t.Fatalf("the key shows in %q", e.Msg)
	}
	return e
}

// failure is a streaming turn that must fail: the fake, the error's
// kind and status, and what else its error must hold.
type failure struct {
	name   string
	fake   interface{ Start(testing.TB) string }
	kind   string
	status int
	check  func(t *testing.T, e *Error)
}

// checkFailures speaks api to each case's fake with a Timeout of 300 ms
// and checks the turn fails as the case says, with no result.
func checkFailures(t *testing.T, api API, clip *callaudio.Clip, cases []failure) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := streamCfg(api, tc.fake.Start(t))
			cfg.Timeout = 300 * time.Millisecond
			res, err := Transcribe(context.Background(), cfg, clip)
			if res != nil {
				t.Fatalf("result %+v with error %v", res, err)
			}
			e := sttError(t, err, tc.kind, tc.status)
			if tc.check != nil {
				tc.check(t, e)
			}
		})
	}
}

// midTurn checks a turn that failed mid-utterance: its message says
// each of want, the stamps taken before (the speech start, the frames
// sent) are kept, and there is no final.
func midTurn(want ...string) func(t *testing.T, e *Error) {
	return func(t *testing.T, e *Error) {
		for _, w := range want {
			if !strings.Contains(e.Msg, w) {
				t.Fatalf("%q does not say %q", e.Msg, w)
			}
		}
		if e.Partial == nil || e.Partial.SpeechStartedMs == nil || e.Partial.SentMs == 0 || e.Partial.FinalMs != 0 {
			t.Fatalf("partial %+v, want the speech start, the frames sent and no final", e.Partial)
		}
	}
}

func TestRealtimeFailures(t *testing.T) {
	checkFailures(t, APIRealtime, toneClip(RealtimeRate, 100, 300, 0), []failure{
		{"401", &stttest.Realtime{Refuse: 401}, KindAuth, 401, nil},
		{"403", &stttest.Realtime{Refuse: 403}, KindAuth, 403, nil},
		{"429", &stttest.Realtime{Refuse: 429}, KindRateLimited, 429, nil},
		{"500", &stttest.Realtime{Refuse: 500}, KindConnect, 500, nil},
		{"dropped", &stttest.Realtime{Drop: true}, KindDropped, 0, midTurn("the WebSocket closed mid-turn")},
		// The quote is cut at 120 bytes after the key was redacted, so
		// the key's start does not show where it is cut.
		{"not an event", &stttest.Realtime{After: strings.Repeat("x", 110) + "Bearer " + testKey + " and more"}, KindBadData, 0,
			midTurn("a message that is no event", "xxxxBearer [re")},
		{"binary", &stttest.Realtime{After: "\x00\x01binary", AfterBinary: true}, KindBadData, 0, midTurn("binary message")},
		{"timeout", &stttest.Realtime{Mute: true}, KindTimeout, 0, func(t *testing.T, e *Error) {
			p := e.Partial
			if p == nil || p.SpeechStoppedMs == nil || p.SilenceFrames == 0 {
				t.Fatalf("partial %+v, want the speech stop and silence frames", p)
			}
			// Silence goes on while the turn waits (300 ms); half of
			// that leaves room for a busy machine's stalls.
			last := p.Frames[len(p.Frames)-1]
			if last < p.SentMs+300/2 {
				t.Fatalf("silence frames stopped at %.3f ms, long before the timeout (clip sent at %.3f ms + 300 ms)", last, p.SentMs)
			}
		}},
		{"error event", &stttest.Realtime{ErrorMsg: "model not found for sk-test-secret"}, KindServer, 0, func(t *testing.T, e *Error) {
			if !strings.Contains(e.Msg, "model not found") || e.Partial == nil {
				t.Fatalf("error %q partial %v", e.Msg, e.Partial)
			}
		}},
	})
}

// Over TLS the frames are followed in the decrypted bytes, and the
// transcript's stamp is still not before the fake sent it.
func TestRealtimeOverTLS(t *testing.T) {
	fake := &stttest.Realtime{Delay: 20 * time.Millisecond}
	srv := httptest.NewTLSServer(fake)
	defer srv.Close()
	cfg := streamCfg(APIRealtime, srv.URL)
	cfg.Endpoint.TLS = srv.Client().Transport.(*http.Transport).TLSClientConfig
	res, err := Transcribe(context.Background(), cfg, toneClip(RealtimeRate, 0, 300, 0))
	if err != nil {
		t.Fatal(err)
	}
	s := fake.Sessions()[0]
	if sent := float64(s.FinalAt.Sub(res.Start)) / float64(time.Millisecond); res.Text != "hello world" || res.FinalMs < sent {
		t.Fatalf("text %q final at %.3f ms, sent at %.3f ms", res.Text, res.FinalMs, sent)
	}
}

// A clip of another rate is sent at the protocol's: 24 kHz frames for
// OpenAI's session from a 16 kHz clip.
func TestRealtimeResamples(t *testing.T) {
	fake := &stttest.Realtime{}
	clip := toneClip(16000, 0, 200, 0)
	res, err := Transcribe(context.Background(), streamCfg(APIRealtime, fake.Start(t)), clip)
	if err != nil {
		t.Fatal(err)
	}
	frames := fakeFrames(t, fake.Sessions, len(res.Frames))
	if res.Rate != RealtimeRate || frames[0].Samples != RealtimeRate*20/1000 || res.AudioMs != clip.Resample(RealtimeRate).DurationMs() {
		t.Fatalf("rate %d, first frame of %d samples, audio %.3f ms (the clip resampled: %.3f)", res.Rate, frames[0].Samples, res.AudioMs, clip.Resample(RealtimeRate).DurationMs())
	}
}
