package stttest

import (
	"encoding/json"
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

	fakeWS
}

// Start serves f until the test ends and returns its base URL.
func (f *VLLMRealtime) Start(t testing.TB) string { return start(t, f) }

func (f *VLLMRealtime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, s := f.accept(w, r, f.Refuse)
	if ws == nil {
		return
	}
	defer ws.CloseNow()
	ctx := r.Context()
	text := f.Text
	if text == "" {
		text = "hello world"
	}
	send(ctx, ws, map[string]any{"type": "session.created", "id": "sess-fake", "created": time.Now().Unix()})
	var validated, started, partial bool
	for {
		_, data, err := ws.Read(ctx)
		at := time.Now()
		if err != nil {
			return
		}
		var ev clientEvent
		if jsonErr := json.Unmarshal(data, &ev); jsonErr != nil {
			send(ctx, ws, map[string]any{"type": "error", "error": "Invalid JSON", "code": "invalid_json"})
			continue
		}
		switch ev.Type {
		case "session.update":
			model := ""
			if ev.Model != nil {
				model = *ev.Model
			}
			f.set(func() { s.Update, s.Model = ev.Type, model })
			validated = true
		case "input_audio_buffer.append":
			fr, err := f.frame(s, at, ev.Audio)
			if err != nil {
				send(ctx, ws, map[string]any{"type": "error", "error": "Invalid audio data", "code": "invalid_audio"})
				continue
			}
			if fr.Speech && f.Drop {
				return
			}
			if fr.Speech && started && !partial {
				partial = true
				send(ctx, ws, map[string]any{"type": "transcription.delta", "delta": strings.Fields(text)[0]})
			}
		case "input_audio_buffer.commit":
			f.set(func() { s.Commits = append(s.Commits, Commit{At: at, Final: ev.Final}) })
			if !validated {
				send(ctx, ws, map[string]any{"type": "error", "error": "Model not validated. Make sure to validate the model by sending a session.update event.", "code": "model_not_validated"})
				continue
			}
			if !ev.Final {
				started = true
				continue
			}
			if f.Mute || !started {
				continue
			}
			time.AfterFunc(f.Delay, func() {
				f.set(func() { s.FinalAt = time.Now() })
				send(ctx, ws, map[string]any{"type": "transcription.done", "text": text,
					"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
			})
		default:
			send(ctx, ws, map[string]any{"type": "error", "error": fmt.Sprintf("Unknown event type: %s", ev.Type), "code": "unknown_event"})
		}
	}
}
