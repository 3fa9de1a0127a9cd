package pocketsphinx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

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

// spoken is text said by espeak-ng's en-us voice: a WAV file at
// espeak-ng's own rate (22.05 kHz), sizes as a pipe leaves them.
func spoken(t *testing.T, text string) []byte {
	t.Helper()
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" || os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("espeak-ng is needed to speak the question: %v", err)
		}
		t.Skip(err)
	}
	out, err := exec.Command(bin, "--stdout", "-v", "en-us", text).Output()
	if err != nil {
		t.Fatalf("espeak-ng: %v", err)
	}
	return out
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
	wav := spoken(t, question)
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
// client's errors, said as such; no decoder is needed to say so.
func TestTranscriptionRefusals(t *testing.T) {
	hs := httptest.NewServer(&Server{Bin: "/nonexistent/pocketsphinx"})
	defer hs.Close()
	wav := wavFile(16000, 1, 16, make([]byte, 3200))
	cases := []struct {
		file   []byte
		fields []string
		want   string
	}{
		{wav, []string{"language", "fr"}, `language \"fr\" is not served: pocketsphinx's en-us model recognizes English only`},
		{[]byte("ID3\x03 an mp3 file"), nil, "not a WAV file"},
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
}

// wavFile is a canonical WAV file of the given layout around data.
func wavFile(rate, channels, bits int, data []byte) []byte {
	var b []byte
	u32 := func(v int) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	u16 := func(v int) { b = binary.LittleEndian.AppendUint16(b, uint16(v)) }
	format := 1
	if bits == 32 {
		format = 3
	}
	b = append(b, "RIFF"...)
	u32(36 + len(data))
	b = append(b, "WAVEfmt "...)
	u32(16)
	u16(format)
	u16(channels)
	u32(rate)
	u32(rate * channels * bits / 8)
	u16(channels * bits / 8)
	u16(bits)
	b = append(b, "data"...)
	u32(len(data))
	return append(b, data...)
}

// TestDecodeWAV: 24-bit stereo and float mono read as the same mono
// 16-bit samples; a resampled second lasts a second at the new rate.
func TestDecodeWAV(t *testing.T) {
	var stereo24, float32s []byte
	want := []int16{0, 16384, -16384, 32767, -32767}
	for _, v := range want {
		x := int32(v) << 8
		for c := 0; c < 2; c++ {
			stereo24 = append(stereo24, byte(x), byte(x>>8), byte(x>>16))
		}
		float32s = binary.LittleEndian.AppendUint32(float32s, math.Float32bits(float32(v)/32767))
	}
	for name, f := range map[string][]byte{"24-bit stereo": wavFile(48000, 2, 24, stereo24), "float mono": wavFile(48000, 1, 32, float32s)} {
		got, rate, err := decodeWAV(f)
		if err != nil || rate != 48000 || len(got) != len(want) {
			t.Fatalf("%s: %v %d %v", name, got, rate, err)
		}
		for i := range want {
			if d := int(got[i]) - int(want[i]); d < -1 || d > 1 {
				t.Errorf("%s: sample %d is %d, want %d", name, i, got[i], want[i])
			}
		}
	}
	second := make([]int16, 24000)
	r := &resampler{from: 24000, to: Rate}
	var out []int16
	for i := 0; i < len(second); i += 480 { // 20 ms pieces
		out = r.push(out, second[i:i+480])
	}
	if d := len(out) - Rate; d < -2 || d > 2 {
		t.Errorf("a second at 24 kHz became %d samples at 16 kHz", len(out))
	}
}
