package pocketsphinx

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/turn"
)

// rtEvent is a server event as the test reads it, with its arrival.
type rtEvent struct {
	Type         string
	ItemID       string `json:"item_id"`
	AudioStartMs *int   `json:"audio_start_ms"`
	AudioEndMs   *int   `json:"audio_end_ms"`
	Transcript   string
	Error        *struct{ Code, Message string }
	at           time.Time
}

// rtClient is a Realtime connection whose events a goroutine reads.
type rtClient struct {
	t      *testing.T
	c      *websocket.Conn
	events chan rtEvent
}

func dialRealtime(t *testing.T, url string) *rtClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/v1/realtime?intent=transcription", nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := &rtClient{t: t, c: c, events: make(chan rtEvent, 100)}
	go func() {
		defer close(rc.events)
		for {
			_, data, err := c.Read(context.Background())
			at := time.Now()
			if err != nil {
				return
			}
			var ev rtEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Errorf("event %s: %v", data, err)
				return
			}
			ev.at = at
			rc.events <- ev
		}
	}()
	return rc
}

func (rc *rtClient) send(v any) {
	b, _ := json.Marshal(v)
	if err := rc.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		rc.t.Fatal(err)
	}
}

func (rc *rtClient) appendPCM(pcm []byte) {
	rc.send(map[string]string{"type": "input_audio_buffer.append", "audio": base64.StdEncoding.EncodeToString(pcm)})
}

// next is the next event, failing the test after a while without one.
func (rc *rtClient) next() rtEvent {
	rc.t.Helper()
	select {
	case ev, ok := <-rc.events:
		if !ok {
			rc.t.Fatal("the server closed the connection")
		}
		return ev
	case <-time.After(15 * time.Second):
		rc.t.Fatal("no event from the server")
	}
	return rtEvent{}
}

// TestRealtimeTranscription: a question espeak-ng says, sent as a phone
// line sends it (20 ms frames at 24 kHz on the wall clock, then silence),
// is heard: the energy detector's speech_started comes while the caller
// speaks, before pocketsphinx's speech_stopped, the transcript comes after the speech
// ended, every event of the utterance names one item. Then the question
// again, all at once, ended by the client's commit, is transcribed by a
// new decoder. The decoders' CPU is counted once the socket closed.
func TestRealtimeTranscription(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	clip := spoken(t, question).Resample(RealtimeRate)
	srv.Warm()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	rc := dialRealtime(t, hs.URL)
	if ev := rc.next(); ev.Type != "session.created" {
		t.Fatalf("first event %+v", ev)
	}
	rc.send(map[string]any{"type": "session.update", "session": map[string]any{"type": "transcription",
		"audio": map[string]any{"input": map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": RealtimeRate},
			"transcription": map[string]any{"language": "en"}}}}})
	if ev := rc.next(); ev.Type != "session.updated" {
		t.Fatalf("after session.update: %+v", ev)
	}

	frames, last := clip.Frames(20), clip.SpeechEndFrame(20)
	var speechEnd time.Time
	start := time.Now()
	var got []rtEvent
	done := false
	for i := 0; !done; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * 20 * time.Millisecond)))
		if i < frames {
			rc.appendPCM(clip.Frame(i, 20))
			if i == last {
				speechEnd = time.Now()
			}
		} else {
			if i > frames+500 {
				t.Fatalf("no transcript 10 s after the audio; events %+v", got)
			}
			rc.appendPCM(callaudio.Silence(RealtimeRate, 20))
		}
		for len(rc.events) > 0 {
			ev := rc.next()
			got = append(got, ev)
			if ev.Type == "error" {
				t.Fatalf("error event %+v", ev.Error)
			}
			done = done || ev.Type == "conversation.item.input_audio_transcription.completed"
		}
	}
	var names []string
	for _, ev := range got {
		names = append(names, ev.Type)
	}
	want := []string{"input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", names, want)
	}
	started, stopped, completed := got[0], got[1], got[3]
	for _, ev := range got[1:] {
		if ev.ItemID != started.ItemID {
			t.Errorf("%s names item %q, speech_started %q", ev.Type, ev.ItemID, started.ItemID)
		}
	}
	if started.AudioStartMs == nil || stopped.AudioEndMs == nil || *started.AudioStartMs >= *stopped.AudioEndMs {
		t.Errorf("speech from %v to %v ms of the audio", started.AudioStartMs, stopped.AudioEndMs)
	}
	if !started.at.Before(speechEnd) {
		t.Errorf("speech_started came %s after the speech ended: the energy detector did not hear the speech as it came", started.at.Sub(speechEnd))
	}
	if !completed.at.After(speechEnd) {
		t.Errorf("the transcript came %s before the speech ended", speechEnd.Sub(completed.at))
	}
	if completed.Transcript == "" {
		t.Fatal("empty transcript")
	}
	t.Logf("speech ended, then %s to speech_stopped, %s to the transcript %q (WER %.2f); audio %d-%d ms",
		stopped.at.Sub(speechEnd).Round(time.Millisecond), completed.at.Sub(speechEnd).Round(time.Millisecond),
		completed.Transcript, turn.WER(question, completed.Transcript), *started.AudioStartMs, *stopped.AudioEndMs)

	// The question again, at once, then commit: the decoder's input
	// closes and what it made of the audio comes.
	rc.appendPCM(clip.PCM())
	rc.send(map[string]string{"type": "input_audio_buffer.commit"})
	var text string
	for text == "" {
		ev := rc.next()
		if ev.Type == "error" {
			t.Fatalf("error event %+v", ev.Error)
		}
		if ev.Type == "conversation.item.input_audio_transcription.completed" {
			if ev.ItemID == started.ItemID || ev.Transcript == "" {
				t.Fatalf("after the commit: %+v", ev)
			}
			text = ev.Transcript
		}
	}
	rc.c.Close(websocket.StatusNormalClosure, "")
	for deadline := time.Now().Add(5 * time.Second); srv.CPU.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if srv.CPU.Load() == 0 {
		t.Error("no decoder CPU counted after the socket closed")
	}
}

// TestRealtimeRefusals: a language other than English, a format other
// than PCM16, an unknown event and a commit of nothing are error events,
// and the session goes on; no decoder is needed to say so.
func TestRealtimeRefusals(t *testing.T) {
	hs := httptest.NewServer(&Server{Bin: "/nonexistent/pocketsphinx"})
	defer hs.Close()
	rc := dialRealtime(t, hs.URL)
	if ev := rc.next(); ev.Type != "session.created" {
		t.Fatalf("first event %+v", ev)
	}
	cases := []struct {
		event any
		want  string
	}{
		{map[string]any{"type": "transcription_session.update", "session": map[string]any{"input_audio_transcription": map[string]any{"language": "ko"}}},
			`language "ko" is not served: pocketsphinx's en-us model recognizes English only`},
		{map[string]any{"type": "session.update", "session": map[string]any{"audio": map[string]any{"input": map[string]any{"format": map[string]any{"type": "audio/pcmu"}}}}},
			`audio format "audio/pcmu" is not served`},
		{map[string]any{"type": "response.create"}, `event type "response.create" is not served`},
		{map[string]any{"type": "input_audio_buffer.commit"}, "the audio buffer is empty"},
	}
	for _, c := range cases {
		rc.send(c.event)
		ev := rc.next()
		if ev.Type != "error" || ev.Error == nil || !strings.Contains(ev.Error.Message, c.want) {
			t.Errorf("%v: %+v, want an error with %q", c.event, ev, c.want)
		}
	}
	rc.send(map[string]any{"type": "session.update", "session": map[string]any{}})
	if ev := rc.next(); ev.Type != "session.updated" {
		t.Errorf("after the errors: %+v", ev)
	}
}
