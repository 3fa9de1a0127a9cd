package voiceagent

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
)

// response is one answer: the LLM's text streamed, each sentence spoken
// as it completes, the audio sent in deltas. Its events go out under its
// lock, and none after its response.done: a cancel's done is the last
// the client hears of it.
type response struct {
	s     *session
	id    string
	item  string
	voice string

	ctx    context.Context
	cancel context.CancelFunc // cuts the LLM stream and kills the speech engine
	done   chan struct{}      // closed when run has returned

	mu    sync.Mutex // what follows, and the order of the answer's events
	ended bool       // response.done was sent
	text  strings.Builder
	// parts are the sentences whose audio has begun: their text and
	// where their audio lies in the answer's; sentMs is the audio sent (ms).
	parts  []part
	sentMs float64
	// pending is audio not yet sent, less than a delta.
	pending []byte
	// cut is the text a truncate left, when one did.
	cut *string
}

// part is a sentence of the answer and its audio's place in the answer's
// (ms from its start); endMs is 0 while it is spoken.
type part struct {
	text           string
	startMs, endMs float64
}

func newResponse(s *session, id, item, voice string) *response {
	ctx, cancel := context.WithCancel(s.ctx)
	return &response{s: s, id: id, item: item, voice: voice, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// errEnded stops the work of an answer that has ended.
var errEnded = errors.New("the response has ended")

// active says the answer has not ended.
func (r *response) active() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.ended
}

// wait waits until the answer's work has returned.
func (r *response) wait() { <-r.done }

// sendLocked sends an event of the answer unless it has ended. r.mu is held.
func (r *response) sendLocked(ev map[string]any) bool {
	if r.ended {
		return false
	}
	ev["response_id"] = r.id
	r.s.ev.Send(ev)
	return true
}

// itemJSON is the answer's item as events show it.
func (r *response) itemJSON(status string) map[string]any {
	return map[string]any{"id": r.item, "object": "realtime.item", "type": "message", "role": "assistant", "status": status,
		"content": []map[string]any{{"type": "output_audio", "transcript": r.text.String()}}}
}

// run gives the answer: the LLM streamed (msgs: the system prompt and
// the conversation), its sentences spoken as they complete.
func (r *response) run(msgs []map[string]string) {
	defer close(r.done)
	defer r.cancel()
	start := time.Now()
	r.mu.Lock()
	r.s.ev.Send(map[string]any{"type": "response.created", "response": map[string]any{"id": r.id, "object": "realtime.response",
		"status": "in_progress", "output": []any{}, "output_modalities": []string{"audio"}}})
	r.sendLocked(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": r.itemJSON("in_progress")})
	r.sendLocked(map[string]any{"type": "response.content_part.added", "item_id": r.item, "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_audio", "transcript": ""}})
	r.mu.Unlock()

	// The sentences go to the speech engine in order, on a goroutine of
	// their own, while the LLM goes on; the queue never blocks the LLM's
	// reader (an answer has at most one sentence a token).
	a := r.s.a
	sentences := make(chan string, a.maxTokens()+1)
	spoken := make(chan error, 1)
	go func() { spoken <- r.speak(sentences) }()

	body := map[string]any{"messages": msgs, "stream": true, "max_tokens": a.maxTokens()}
	if a.LLM.Model != "" {
		body["model"] = a.LLM.Model
	}
	b, _ := stream.EncodeBody(body)
	var sp sentence.Splitter
	_, err := stream.Do(r.ctx, stream.Request{URL: a.LLM.Base, Body: b, Header: a.LLM.Headers(), TLS: a.LLM.TLS, DiscardChunks: true,
		OnChunk: func(c stream.Chunk) (bool, error) {
			if !r.delta(c.Text) {
				return false, nil // ended: the connection closes now
			}
			for _, s := range sp.Feed(c.Text, c.TMs) {
				sentences <- s.Text
			}
			return true, nil
		}})
	if err == nil && r.ctx.Err() == nil {
		for _, s := range sp.End(0) {
			sentences <- s.Text
		}
	}
	close(sentences)
	serr := <-spoken
	switch {
	case r.ctx.Err() != nil:
		// Stopped: its response.done went with the stop.
	case err != nil:
		r.fail("llm_failed", fmt.Sprintf("the LLM server: %v", err))
	case serr != nil:
		r.fail("speech_failed", fmt.Sprintf("the speech engine: %v", serr))
	default:
		r.complete()
	}
	if a.Log != nil {
		r.mu.Lock()
		fmt.Fprintf(a.Log, "voice: %s: %d chars, %.0f ms of audio in %s\n", r.id, r.text.Len(), r.sentMs, time.Since(start).Round(time.Millisecond))
		r.mu.Unlock()
	}
}

// delta is a piece of the LLM's text: sent as the answer's text and
// transcript; false once the answer has ended.
func (r *response) delta(text string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	r.text.WriteString(text)
	r.sendLocked(map[string]any{"type": "response.output_text.delta", "item_id": r.item, "output_index": 0, "content_index": 0, "delta": text})
	r.sendLocked(map[string]any{"type": "response.output_audio_transcript.delta", "item_id": r.item, "output_index": 0, "content_index": 0, "delta": text})
	return true
}

// speak says each sentence as it comes, its audio sent in deltas of
// DeltaMs (a sentence's last delta when it ends, so its audio never
// waits for the next sentence). After a stop it only drains the queue.
func (r *response) speak(sentences <-chan string) error {
	var failed error
	for text := range sentences {
		if failed != nil || r.ctx.Err() != nil {
			continue
		}
		r.mu.Lock()
		r.parts = append(r.parts, part{text: text, startMs: r.sentMs + float64(len(r.pending))/bytesPerMs})
		r.mu.Unlock()
		err := r.s.a.Voice.Speak(r.ctx, text, r.voice, r.audio)
		if err == nil {
			err = r.flush()
		}
		r.mu.Lock()
		r.parts[len(r.parts)-1].endMs = r.sentMs
		r.mu.Unlock()
		if err != nil && r.ctx.Err() == nil && !errors.Is(err, errEnded) {
			failed = err
		}
	}
	return failed
}

// audio takes a piece of a sentence's audio and sends the whole deltas it
// completes.
func (r *response) audio(pcm []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return errEnded
	}
	r.pending = append(r.pending, pcm...)
	const size = DeltaMs * bytesPerMs
	for len(r.pending) >= size {
		r.sendAudioLocked(r.pending[:size])
		r.pending = r.pending[size:]
	}
	return nil
}

// flush sends the audio that waits, less than a delta.
func (r *response) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return errEnded
	}
	if len(r.pending) > 0 {
		r.sendAudioLocked(r.pending)
		r.pending = r.pending[:0]
	}
	return nil
}

func (r *response) sendAudioLocked(pcm []byte) {
	if r.sendLocked(map[string]any{"type": "response.output_audio.delta", "item_id": r.item, "output_index": 0, "content_index": 0,
		"delta": base64.StdEncoding.EncodeToString(pcm)}) {
		r.sentMs += float64(len(pcm)) / bytesPerMs
	}
}

// complete ends an answer given whole.
func (r *response) complete() {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := r.text.String()
	common := func(typ string) map[string]any {
		return map[string]any{"type": typ, "item_id": r.item, "output_index": 0, "content_index": 0}
	}
	r.sendLocked(common("response.output_audio.done"))
	ev := common("response.output_audio_transcript.done")
	ev["transcript"] = text
	r.sendLocked(ev)
	ev = common("response.output_text.done")
	ev["text"] = text
	r.sendLocked(ev)
	ev = common("response.content_part.done")
	ev["part"] = map[string]any{"type": "output_audio", "transcript": text}
	r.sendLocked(ev)
	r.sendLocked(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": r.itemJSON("completed")})
	r.endLocked("completed", nil)
}

// fail ends an answer that an engine failed: an error event, then
// response.done failed.
func (r *response) fail(code, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.s.ev.Send(map[string]any{"type": "error", "error": map[string]any{"type": "server_error", "code": code, "message": msg}})
	r.endLocked("failed", map[string]any{"type": "failed", "error": map[string]any{"type": "server_error", "code": code, "message": msg}})
}

// stop ends the answer at once, when it has not ended: the LLM stream
// is cut and the speech engine killed (the context's end), and
// response.done cancelled is its last event. reason is
// client_cancelled or turn_detected. It says whether it stopped it.
func (r *response) stop(reason string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	r.cancel()
	r.endLocked("cancelled", map[string]any{"type": "cancelled", "reason": reason})
	return true
}

// endLocked sends response.done with status and its details.
func (r *response) endLocked(status string, details map[string]any) {
	itemStatus := "completed"
	if status != "completed" {
		itemStatus = "incomplete"
	}
	resp := map[string]any{"id": r.id, "object": "realtime.response", "status": status, "status_details": details,
		"output": []any{r.itemJSON(itemStatus)}, "output_modalities": []string{"audio"}}
	r.sendLocked(map[string]any{"type": "response.done", "response": resp})
	r.ended = true
}

// said is the answer's text as the conversation keeps it: what the LLM
// said, or what a truncate left of it.
func (r *response) said() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut != nil {
		return *r.cut
	}
	return r.text.String()
}

// truncate keeps of the answer's text what was heard of its first
// audioEndMs ms of audio: the sentences played whole and, of the one
// being played, as many of its words as the share of its audio played.
func (r *response) truncate(audioEndMs int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := float64(audioEndMs)
	if at > r.sentMs+0.5 {
		return fmt.Errorf("audio_end_ms %d is beyond the %.0f ms of audio the answer has", audioEndMs, r.sentMs)
	}
	var kept []string
	for _, p := range r.parts {
		end := p.endMs
		if end == 0 {
			end = r.sentMs
		}
		if at >= end {
			kept = append(kept, p.text)
			continue
		}
		if at > p.startMs && end > p.startMs {
			words := strings.Fields(p.text)
			if n := int(float64(len(words)) * (at - p.startMs) / (end - p.startMs)); n > 0 {
				kept = append(kept, strings.Join(words[:n], " "))
			}
		}
		break
	}
	cut := strings.Join(kept, " ")
	r.cut = &cut
	return nil
}
