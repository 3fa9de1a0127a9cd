package voiceagent

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/engineserve"
)

// event is a server event as the tests read it, with its arrival.
type event struct {
	Type         string
	ItemID       string `json:"item_id"`
	ResponseID   string `json:"response_id"`
	AudioStartMs *int   `json:"audio_start_ms"`
	AudioEndMs   *int   `json:"audio_end_ms"`
	Transcript   string
	Delta        string
	Error        *struct{ Type, Code, Message string }
	Response     *struct {
		ID            string
		Status        string
		StatusDetails *struct{ Type, Reason string } `json:"status_details"`
	}
	Session json.RawMessage
	raw     string
	at      time.Time
}

// client is a Realtime connection whose events a goroutine reads.
type client struct {
	t      *testing.T
	c      *websocket.Conn
	events chan event
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/v1/realtime", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 24)
	cl := &client{t: t, c: c, events: make(chan event, 10000)}
	go func() {
		defer close(cl.events)
		for {
			_, data, err := c.Read(context.Background())
			at := time.Now()
			if err != nil {
				return
			}
			var ev event
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Errorf("event %s: %v", data, err)
				return
			}
			ev.raw, ev.at = string(data), at
			cl.events <- ev
		}
	}()
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	return cl
}

func (cl *client) send(v any) {
	b, _ := json.Marshal(v)
	if err := cl.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		cl.t.Fatal(err)
	}
}

func (cl *client) appendPCM(pcm []byte) {
	cl.send(map[string]string{"type": "input_audio_buffer.append", "audio": base64.StdEncoding.EncodeToString(pcm)})
}

// next is the next event, failing the test after a while without one.
func (cl *client) next() event {
	cl.t.Helper()
	select {
	case ev, ok := <-cl.events:
		if !ok {
			cl.t.Fatal("the server closed the connection")
		}
		return ev
	case <-time.After(20 * time.Second):
		cl.t.Fatal("no event from the server")
	}
	return event{}
}

// until reads events until one of type typ, returning all read.
func (cl *client) until(typ string) []event {
	cl.t.Helper()
	var got []event
	for {
		ev := cl.next()
		got = append(got, ev)
		if ev.Type == typ {
			return got
		}
	}
}

// quiet says no event comes within d.
func (cl *client) quiet(d time.Duration) (event, bool) {
	select {
	case ev, ok := <-cl.events:
		return ev, !ok
	case <-time.After(d):
		return event{}, true
	}
}

// tone is ms of a loud 24 kHz tone (speech to an energy detector).
func tone(ms int) []byte {
	n := 24 * ms
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := int16(8000)
		if i%24 < 12 {
			v = -8000
		}
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// silence is ms of 24 kHz silence.
func silence(ms int) []byte { return make([]byte, 48*ms) }

// fakeEars is a Hearing whose detector hears any sample above 1 % of
// full scale as speech, and ends an utterance after 200 ms without one,
// heard as transcript.
type fakeEars struct {
	transcript string
}

func (f *fakeEars) Listen(ctx context.Context, ev *engineserve.Events, id string, started func(string), heard func(string, string)) Ears {
	return &fakeListener{ev: ev, id: id, started: started, heard: heard, transcript: f.transcript}
}

type fakeListener struct {
	ev         *engineserve.Events
	id         string
	started    func(string)
	heard      func(string, string)
	transcript string

	mu       sync.Mutex
	fedMs    float64
	lastLoud float64
	open     string
	n        int
	closed   bool
	rate     int
}

func (l *fakeListener) AppendEvent(b64, eventID string) {
	pcm, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		l.ev.Fail("invalid_value", eventID, "audio is not base64: %v", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; i+1 < len(pcm); i += 2 {
		t := l.fedMs + float64(i/2)/24
		if v := int16(binary.LittleEndian.Uint16(pcm[i:])); v > 328 || v < -328 {
			if l.open == "" {
				l.n++
				l.open = l.id + "_item" + string(rune('0'+l.n))
				l.ev.Send(map[string]any{"type": "input_audio_buffer.speech_started", "audio_start_ms": int(t), "item_id": l.open})
				l.started(l.open)
			}
			l.lastLoud = t
		} else if l.open != "" && t-l.lastLoud > 200 {
			id := l.open
			l.open = ""
			l.ev.Send(map[string]any{"type": "input_audio_buffer.speech_stopped", "audio_end_ms": int(t), "item_id": id})
			l.ev.Send(map[string]any{"type": "conversation.item.input_audio_transcription.completed", "item_id": id, "transcript": l.transcript})
			l.heard(id, l.transcript)
		}
	}
	l.fedMs += float64(len(pcm)/2) / 24
}

func (l *fakeListener) Commit(eventID string) {}
func (l *fakeListener) Rate() int {
	if l.rate == 0 {
		return 24000
	}
	return l.rate
}
func (l *fakeListener) SetRate(r int) { l.rate = r }
func (l *fakeListener) Close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// fakeVoice speaks every sentence as Pieces pieces of 25 ms of audio,
// Delay apart; it records what it was asked and whether a stop came
// while it spoke.
type fakeVoice struct {
	Pieces int
	Delay  time.Duration

	mu      sync.Mutex
	said    []string
	voices  []string
	stopped int
}

func (f *fakeVoice) Speak(ctx context.Context, text, voice string, put func([]byte) error) error {
	f.mu.Lock()
	f.said = append(f.said, text)
	f.voices = append(f.voices, voice)
	f.mu.Unlock()
	piece := tone(25)
	for i := 0; i < f.Pieces; i++ {
		select {
		case <-ctx.Done():
			f.mu.Lock()
			f.stopped++
			f.mu.Unlock()
			return ctx.Err()
		case <-time.After(f.Delay):
		}
		if err := put(piece); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeVoice) record() (said, voices []string, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.said...), append([]string(nil), f.voices...), f.stopped
}

// serve runs an agent until the test ends and returns its base URL.
func serve(t *testing.T, a *Agent) string {
	t.Helper()
	hs := httptest.NewServer(a)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}
