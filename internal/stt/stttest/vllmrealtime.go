package stttest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// VLLMRealtime is vLLM's /v1/realtime (any path): session.created;
// session.update {model}; input_audio_buffer.commit with final false
// starts a transcription (a commit before any session.update is refused
// with an error event, as vLLM refuses it); PCM16 at 16 kHz appended,
// one transcription.delta at the first speech frame of a started
// transcription; the commit with final true answers, Delay later,
// transcription.done with Text.
type VLLMRealtime struct {
	Text  string        // the transcript ("" : "hello world")
	Delay time.Duration // from the final commit to transcription.done
	// Mute never sends transcription.done.
	Mute bool
	// Drop closes the socket at the first speech frame.
	Drop bool
	// Refuse refuses the upgrade with this HTTP status.
	Refuse int
	// Echo names upgrade request headers whose values the transcript
	// and an error event (ErrorMsg) quote (" heard VALUE").
	Echo []string
	// DeltaBytes, when set, sends the whole transcript as deltas of that
	// many bytes at the first speech frame (one word otherwise), so an
	// echoed key is split across them.
	DeltaBytes int
	// NoDoneText sends transcription.done without its text: the
	// transcript is the deltas joined.
	NoDoneText bool
	// ErrorMsg answers the session update with an error event.
	ErrorMsg string

	fakeWS
}

// Start serves f until the test ends and returns its base URL.
func (f *VLLMRealtime) Start(t testing.TB) string { return start(t, f) }

func (f *VLLMRealtime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	text := orHello(f.Text) + echoed(f.Echo, r.Header)
	hello := map[string]any{"type": "session.created", "id": "sess-fake", "created": time.Now().Unix()}
	badJSON := map[string]any{"type": "error", "error": "Invalid JSON", "code": "invalid_json"}
	f.serve(w, r, f.Refuse, hello, badJSON, func(c *conn) func(clientEvent, time.Time) bool {
		s := c.s
		var validated, started, partial bool
		return func(ev clientEvent, at time.Time) bool {
			switch ev.Type {
			case "session.update":
				model := ""
				if ev.Model != nil {
					model = *ev.Model
				}
				f.set(func() { s.Update, s.Model = ev.Type, model })
				if f.ErrorMsg != "" {
					c.send(map[string]any{"type": "error", "error": f.ErrorMsg + echoed(f.Echo, r.Header), "code": "invalid_model"})
					return false
				}
				validated = true
			case "input_audio_buffer.append":
				fr, err := f.frame(s, at, ev.Audio)
				if err != nil {
					c.send(map[string]any{"type": "error", "error": "Invalid audio data", "code": "invalid_audio"})
					return false
				}
				if fr.Speech && f.Drop {
					return true
				}
				if fr.Speech && started && !partial {
					partial = true
					deltas := strings.Fields(text)[:1]
					if f.DeltaBytes > 0 {
						deltas = cut(text, f.DeltaBytes)
					}
					for _, d := range deltas {
						c.send(map[string]any{"type": "transcription.delta", "delta": d})
					}
				}
			case "input_audio_buffer.commit":
				f.set(func() { s.Commits = append(s.Commits, Commit{At: at, Final: ev.Final}) })
				if !validated {
					c.send(map[string]any{"type": "error", "error": "Model not validated. Make sure to validate the model by sending a session.update event.", "code": "model_not_validated"})
					return false
				}
				if !ev.Final {
					started = true
					return false
				}
				if f.Mute || !started {
					return false
				}
				time.AfterFunc(f.Delay, func() {
					f.set(func() { s.FinalAt = time.Now() })
					done := map[string]any{"type": "transcription.done", "text": text,
						"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
					if f.NoDoneText {
						delete(done, "text")
					}
					c.send(done)
				})
			default:
				c.send(map[string]any{"type": "error", "error": fmt.Sprintf("Unknown event type: %s", ev.Type), "code": "unknown_event"})
			}
			return false
		}
	})
}
