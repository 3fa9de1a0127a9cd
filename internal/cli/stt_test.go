package cli

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"ttftlab/internal/pocketsphinx"
)

// TestSTTServe: `stt serve` answers a transcription of a question
// espeak-ng says with its words; Ctrl-C stops it.
func TestSTTServe(t *testing.T) {
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	espeak := realEspeak(t)
	wav, err := exec.Command(espeak, "--stdout", "-v", "en-us", "Is the clinic open on Saturday?").Output()
	if err != nil {
		t.Fatal(err)
	}
	resp, url, stop := serving(t, func(url string) (*http.Response, error) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "q.wav")
		fw.Write(wav)
		mw.Close()
		return http.Post(url+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
	}, "stt", "serve")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"text":"`) || strings.Contains(string(body), `"text":""`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	t.Logf("heard %s", body)
	code, stdout, stderr := stop()
	if code != 130 || !strings.Contains(stdout, "speech-to-text server: "+url+" (POST /v1/audio/transcriptions, GET /v1/realtime; pocketsphinx") || !strings.Contains(stderr, "stt: ") {
		t.Errorf("exit %d (want 130 for Ctrl-C), stdout %q, stderr %q", code, stdout, stderr)
	}
}
