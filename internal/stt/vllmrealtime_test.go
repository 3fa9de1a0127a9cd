package stt

import (
	"context"
	"testing"
	"time"

	"ttftlab/internal/stt/stttest"
)

func TestVLLMRealtimeTurn(t *testing.T) {
	fake := &stttest.VLLMRealtime{Delay: 250 * time.Millisecond, Text: "what time is it"}
	cfg := streamCfg(APIVLLMRealtime, fake.Start(t))
	cfg.Endpoint.Model = "mistralai/Voxtral-Mini-4B-Realtime-2602"
	clip := toneClip(VLLMRealtimeRate, 100, 500, 100)
	res, err := Transcribe(context.Background(), cfg, clip)
	if err != nil {
		t.Fatal(err)
	}
	frames := fakeFrames(t, fake.Sessions, len(res.Frames))
	checkPacing(t, res, frames, 20)
	s := fake.Sessions()[0]
	checkDelay(t, res, s, 20)
	if res.Text != "what time is it" || res.API != APIVLLMRealtime || res.Rate != VLLMRealtimeRate || res.Dialect != "" {
		t.Fatalf("result %+v", res)
	}
	if s.Update != "session.update" || s.Model != cfg.Endpoint.Model || s.Query != "" || s.Auth != "Bearer sk-test-secret" {
		t.Fatalf("the fake saw %+v", s)
	}
	// The tail of silence, then the final commit; the first commit
	// (final false) came before any frame.
	if want := VLLMTailMs / 20; res.SilenceFrames != want || len(res.Frames) != clip.Frames(20)+want {
		t.Fatalf("%d silence frames (%d frames), want %d after the clip's %d", res.SilenceFrames, len(res.Frames), want, clip.Frames(20))
	}
	if len(s.Commits) != 2 || s.Commits[0].Final || !s.Commits[1].Final {
		t.Fatalf("commits %+v, want final false then final true", s.Commits)
	}
	if !s.Commits[0].At.Before(frames[0].At) || s.Commits[1].At.Before(frames[len(res.Frames)-1].At) {
		t.Fatalf("commits received at %v and %v; the frames from %v to %v", s.Commits[0].At, s.Commits[1].At, frames[0].At, frames[len(res.Frames)-1].At)
	}
	// The fake sends its delta when it has read the first speech frame.
	heard := float64(frames[clip.SpeechStartFrame(20)].At.Sub(res.Start)) / float64(time.Millisecond)
	if res.FirstPartialMs == nil || *res.FirstPartialMs < heard || *res.FirstPartialMs > res.FinalMs {
		t.Fatalf("first partial %v, speech start received at %.3f, final %.3f", res.FirstPartialMs, heard, res.FinalMs)
	}
}

// TestVLLMRealtimeFailures: vLLM's own turns that fail (the refused
// upgrade is the WebSocket's, tested with the Realtime session).
func TestVLLMRealtimeFailures(t *testing.T) {
	checkFailures(t, APIVLLMRealtime, toneClip(VLLMRealtimeRate, 100, 300, 0), []failure{
		{"dropped", &stttest.VLLMRealtime{Drop: true}, KindDropped, 0, func(t *testing.T, e *Error) {
			if e.Partial == nil || len(e.Partial.Frames) == 0 || e.Partial.FinalMs != 0 {
				t.Fatalf("partial %+v, want the frames sent and no final", e.Partial)
			}
		}},
		{"timeout", &stttest.VLLMRealtime{Mute: true}, KindTimeout, 0, func(t *testing.T, e *Error) {
			if e.Partial == nil || e.Partial.FirstPartialMs == nil || e.Partial.SentMs == 0 {
				t.Fatalf("partial %+v, want the first partial and the clip sent", e.Partial)
			}
		}},
	})
}
