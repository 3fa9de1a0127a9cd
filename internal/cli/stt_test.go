package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/pocketsphinx"
)

// TestSTTUsage: the speech-to-text commands' usage errors exit 2 and say
// what is wrong; -h shows their flags.
func TestSTTUsage(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"stt"}, 2, "serve"},
		{[]string{"stt", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"stt", "install", "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"stt", "install", "--no-such-flag"}, 2, "Usage: ttftlab stt install"},
		{[]string{"stt", "serve", "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"stt", "serve", "--port", "70000"}, 2, "-port"},
		{[]string{"stt", "serve", "-h"}, 0, "-port"},
		{[]string{"stt", "install", "-h"}, 0, "-force"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.output) {
			t.Errorf("ttftlab %s: exit %d, want %d with %q in:\n%s%s", strings.Join(c.args, " "), code, c.code, c.output, stdout, stderr)
		}
	}
}

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
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"stt", "serve", "--port", fmt.Sprint(port), "-v"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	var resp *http.Response
	for {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "q.wav")
		fw.Write(wav)
		mw.Close()
		resp, err = http.Post(url+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
		if err == nil {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("stt serve exited %d:\n%s%s", code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"text":"`) || strings.Contains(string(body), `"text":""`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	t.Logf("heard %s", body)
	cancel()
	code := <-done
	if code != 130 || !strings.Contains(out.String(), "speech-to-text server: "+url) || !strings.Contains(errb.String(), "stt: ") {
		t.Errorf("exit %d (want 130 for Ctrl-C), stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
