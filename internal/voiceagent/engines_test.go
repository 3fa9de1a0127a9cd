package voiceagent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"
)

func TestMain(m *testing.M) { llamatest.Main(m) }

// engines are the real speech-to-text engine and speech engine; without
// one the test is skipped with the reason, or fails when
// TTFTLAB_REQUIRE_STT (TTFTLAB_REQUIRE_TTS) is set.
func engines(t *testing.T) (pocketsphinxBin, espeakBin string) {
	t.Helper()
	ps, err := pocketsphinx.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	es, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" || os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("espeak-ng is needed: %v", err)
		}
		t.Skip(err)
	}
	return ps, es
}

// processing says whether llama-server's slot is generating (GET
// /slots).
func processing(t *testing.T, base string) bool {
	t.Helper()
	resp, err := http.Get(base + "/slots")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var slots []struct {
		IsProcessing bool `json:"is_processing"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&slots); err != nil || len(slots) == 0 {
		t.Fatalf("GET /slots: %v (%d slots)", err, len(slots))
	}
	return slots[0].IsProcessing
}

// TestSpokenQuestion: against llama-server, pocketsphinx and espeak-ng,
// a question espeak-ng says, sent as a phone line sends it (20 ms frames
// at 24 kHz on the wall clock, then silence), is heard (speech_stopped,
// a transcript) and answered: text deltas, then audio deltas after the
// speech ended. A response.cancel while the answer's audio comes and the
// LLM still generates stops it: response.done cancelled, no audio after
// it, and llama-server's slot goes idle (it saw the stream cut).
func TestSpokenQuestion(t *testing.T) {
	psBin, esBin := engines(t)
	llama := llamatest.Start(t, "--ignore-eos")
	clip, err := callaudio.Synthesize(context.Background(), esBin, "What time does the clinic open on Saturday?", "en-us")
	if err != nil {
		t.Fatal(err)
	}
	clip = clip.Resample(24000)
	ps := &pocketsphinx.Server{Bin: psBin}
	defer ps.Close()
	if err := ps.Warm(); err != nil {
		t.Fatal(err)
	}
	// An answer long enough to be still generating when it is cancelled,
	// short enough to fit the slot's context (2048 tokens).
	const maxTokens = 1500
	a := &Agent{LLM: &endpoint.Endpoint{Base: llama.URL}, Ears: Pocketsphinx{ps}, Voice: &tts.Server{Bin: esBin}, MaxTokens: maxTokens}
	cl := dial(t, serve(t, a))
	if ev := cl.next(); ev.Type != "session.created" {
		t.Fatalf("first event %s", ev.raw)
	}

	// The phone line: the clip's frames, then silence, until the test
	// ends.
	var speechEnd atomic.Int64
	stop := make(chan struct{})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		frames, last := clip.Frames(20), clip.SpeechEndFrame(20)
		start := time.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(start.Add(time.Duration(i) * 20 * time.Millisecond))):
			}
			pcm := callaudio.Silence(24000, 20)
			if i < frames {
				pcm = clip.Frame(i, 20)
			}
			if cl.c.Write(context.Background(), 1, []byte(`{"type":"input_audio_buffer.append","audio":"`+base64.StdEncoding.EncodeToString(pcm)+`"}`)) != nil {
				return
			}
			if i == last {
				speechEnd.Store(time.Now().UnixNano())
			}
		}
	}()
	defer func() { close(stop); <-sent }()

	var got []string
	var transcript, text string
	var audioDeltas int
	var firstAudio time.Time
	for audioDeltas < 2 {
		ev := cl.next()
		got = append(got, ev.Type)
		switch ev.Type {
		case "error":
			t.Fatalf("error event %s", ev.raw)
		case "response.done":
			if ev.Response.Status != "cancelled" || ev.Response.StatusDetails.Reason != "turn_detected" {
				t.Fatalf("the answer ended before its audio was cancelled: %s", ev.raw)
			}
			// pocketsphinx cut the question in two: its second part
			// stopped the answer to the first, and is answered itself.
			text, audioDeltas = "", 0
		case "conversation.item.input_audio_transcription.completed":
			transcript = ev.Transcript
		case "response.output_text.delta":
			text += ev.Delta
		case "response.output_audio.delta":
			if audioDeltas == 0 {
				firstAudio = ev.at
			}
			audioDeltas++
		}
	}
	seq := strings.Join(got, " ")
	for _, want := range []string{"input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "response.created", "response.output_text.delta"} {
		if !strings.Contains(seq, want) {
			t.Errorf("no %s in %s", want, seq)
		}
	}
	if transcript == "" || text == "" {
		t.Errorf("heard %q, answered %q", transcript, text)
	}
	if end := speechEnd.Load(); end == 0 || !firstAudio.After(time.Unix(0, end)) {
		t.Errorf("the first audio came before the speech ended")
	}
	t.Logf("heard %q; first audio %s after the speech end; text so far %q", transcript,
		firstAudio.Sub(time.Unix(0, speechEnd.Load())).Round(time.Millisecond), text)

	if !processing(t, llama.URL) {
		t.Fatal("llama-server is not generating at the cancel: the test cannot show the cut")
	}
	cl.send(map[string]any{"type": "response.cancel"})
	rest := cl.until("response.done")
	if done := rest[len(rest)-1]; done.Response.Status != "cancelled" {
		t.Fatalf("response.done %s", done.raw)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processing(t, llama.URL) {
		if time.Now().After(deadline) {
			t.Fatal("llama-server's slot still processing 5 s after the cancel")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The slot stopped because the stream was cut, not at the answer's
	// end: its release line counts fewer tokens than the answer may have (prompt included)
	// (--ignore-eos: only a cut stops it sooner).
	var released string
	for _, line := range strings.Split(llamaserver.TailFile(llama.LogPath, 200), "\n") {
		if _, n, ok := strings.Cut(line, "stop processing: n_tokens = "); ok {
			released = n
		}
	}
	n, _, _ := strings.Cut(released, ",")
	if tokens, err := strconv.Atoi(strings.TrimSpace(n)); err != nil || tokens >= maxTokens {
		t.Errorf("llama-server's slot released after %q tokens: the stream was not cut", released)
	} else {
		t.Logf("llama-server's slot released after %d tokens (prompt included)", tokens)
	}
	for {
		ev, quiet := cl.quiet(500 * time.Millisecond)
		if quiet {
			break
		}
		if strings.HasPrefix(ev.Type, "response.") {
			t.Fatalf("after response.done: %s", ev.raw)
		}
	}
}
