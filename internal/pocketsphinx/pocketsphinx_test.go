package pocketsphinx

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/tts"
	"ttftlab/internal/turn"
)

// question is what the caller says in these tests.
const question = "What time does the clinic open on Saturday?"

// engine is the installed pocketsphinx; without one the test is skipped
// with the reason, or fails when TTFTLAB_REQUIRE_STT is set.
func engine(t *testing.T) string {
	t.Helper()
	bin, err := Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	return bin
}

// spoken is text said by espeak-ng's en-us voice, at espeak-ng's own
// rate (22.05 kHz).
func spoken(t *testing.T, text string) *callaudio.Clip {
	t.Helper()
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" || os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("espeak-ng is needed to speak the question: %v", err)
		}
		t.Skip(err)
	}
	clip, err := callaudio.Synthesize(context.Background(), bin, text, "en-us")
	if err != nil {
		t.Fatal(err)
	}
	return clip
}

// upload posts a transcription form: the file and the fields.
func upload(t *testing.T, url string, file []byte, fields ...string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "question.wav")
	fw.Write(file)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	mw.Close()
	resp, err := http.Post(url+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTranscriptionOfSpokenQuestion: a question espeak-ng says reaches
// the recognizer and comes back as words, as JSON and as server-sent
// events whose deltas make the done event's text; the decoders' CPU is
// counted.
func TestTranscriptionOfSpokenQuestion(t *testing.T) {
	srv := &Server{Bin: engine(t)}
	defer srv.Close()
	wav := spoken(t, question).WAV()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	code, body := upload(t, hs.URL, wav, "model", "whisper-1", "language", "en")
	var got struct{ Text string }
	if code != 200 || json.Unmarshal([]byte(body), &got) != nil || strings.TrimSpace(got.Text) == "" {
		t.Fatalf("%d %s", code, body)
	}
	wer := turn.WER(question, got.Text)
	t.Logf("said %q, heard %q: WER %.2f", question, got.Text, wer)
	if wer >= 0.9 {
		t.Errorf("WER %.2f: the audio did not reach the recognizer as speech", wer)
	}

	code, body = upload(t, hs.URL, wav, "stream", "true")
	var deltas, done string
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct{ Type, Delta, Text string }
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		switch ev.Type {
		case "transcript.text.delta":
			deltas += ev.Delta
		case "transcript.text.done":
			done = ev.Text
		default:
			t.Errorf("unexpected event %q", data)
		}
	}
	if code != 200 || done == "" || deltas != done || done != got.Text {
		t.Errorf("stream: %d, deltas %q, done %q (json said %q):\n%s", code, deltas, done, got.Text, body)
	}
	if srv.CPU.Load() <= 0 {
		t.Errorf("CPU %d ns after two decodings", srv.CPU.Load())
	}
}

// TestTranscriptionRefusals: a language the model does not know, audio
// that is not WAV, a missing file and an unknown response format are the
// client's errors, said as such, before any decoder runs; an engine that
// cannot start is the server's.
func TestTranscriptionRefusals(t *testing.T) {
	hs := httptest.NewServer(&Server{Bin: "/nonexistent/pocketsphinx"})
	defer hs.Close()
	wav := (&callaudio.Clip{Samples: make([]int16, 1600), Rate: 16000}).WAV()
	cases := []struct {
		file   []byte
		fields []string
		want   string
	}{
		{wav, []string{"language", "fr"}, `language \"fr\" is not served: pocketsphinx's en-us model recognizes English only`},
		{[]byte("ID3\x03 an mp3 file"), nil, "the file cannot be read: the audio is not WAV"},
		{wav, []string{"response_format", "srt"}, `response_format \"srt\" is not served`},
	}
	for _, c := range cases {
		code, body := upload(t, hs.URL, c.file, c.fields...)
		if code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("%v: %d %s, want 400 with %q", c.fields, code, body, c.want)
		}
	}
	resp, err := http.Post(hs.URL+"/v1/audio/transcriptions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), `field \"file\"`) {
		t.Errorf("a JSON body: %d %s", resp.StatusCode, b)
	}
	// A request the client got right, with no engine to run, is the
	// server's error.
	if code, body := upload(t, hs.URL, wav, "language", "en-US"); code != 500 || !strings.Contains(body, "cannot start pocketsphinx (/nonexistent/pocketsphinx)") {
		t.Errorf("without an engine: %d %s", code, body)
	}
}
