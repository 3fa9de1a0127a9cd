package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/pocketsphinx"
)

// childPIDs are the running processes whose parent is this one.
func childPIDs() map[int]bool {
	pids := map[int]bool{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids[pid] = true
		}
	}
	return pids
}

// TestVoiceServe: `voice serve --model` starts llama-server, says where
// it listens once ready, and a session there hears a spoken question
// and answers it in audio; Ctrl-C exits 130 and stops every process it
// started (llama-server, the decoders), each by its PID.
func TestVoiceServe(t *testing.T) {
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	espeak := realEspeak(t)
	_, model := llamatest.Need(t)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	llamaPort, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	before := childPIDs()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"voice", "serve", "--server", fmt.Sprintf("http://127.0.0.1:%d", llamaPort), "--model", model,
			"--port", strconv.Itoa(port), "--max-tokens", "40"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	listening := fmt.Sprintf("listening on ws://127.0.0.1:%d/v1/realtime\n", port)
	for !strings.Contains(out.String(), listening) {
		select {
		case code := <-done:
			t.Fatalf("voice serve exited %d:\n%s%s", code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}

	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dcancel()
	c, _, err := websocket.Dial(dctx, fmt.Sprintf("ws://127.0.0.1:%d/v1/realtime", port), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 24)
	read := func() (string, string) {
		rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer rcancel()
		_, data, err := c.Read(rctx)
		if err != nil {
			t.Fatalf("reading an event: %v", err)
		}
		var ev struct{ Type string }
		json.Unmarshal(data, &ev)
		return ev.Type, string(data)
	}
	if typ, raw := read(); typ != "session.created" || !strings.Contains(raw, `"type":"realtime"`) {
		t.Fatalf("first event %s", raw)
	}
	clip, err := callaudio.Synthesize(context.Background(), espeak, "What time does the clinic open on Saturday?", "en-us")
	if err != nil {
		t.Fatal(err)
	}
	clip = clip.Resample(24000)
	send := func(pcm []byte) {
		b, _ := json.Marshal(map[string]string{"type": "input_audio_buffer.append", "audio": base64.StdEncoding.EncodeToString(pcm)})
		if err := c.Write(context.Background(), websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < clip.Frames(20); i++ {
		send(clip.Frame(i, 20))
	}
	for i := 0; i < 100; i++ {
		send(callaudio.Silence(24000, 20))
	}
	var seen []string
	for {
		typ, raw := read()
		seen = append(seen, typ)
		if typ == "error" {
			t.Fatalf("error event %s", raw)
		}
		if typ == "response.output_audio.delta" {
			break
		}
	}
	started := map[int]bool{}
	for pid := range childPIDs() {
		if !before[pid] {
			started[pid] = true
		}
	}
	if len(started) < 2 {
		t.Errorf("processes started while a session is served: %v (llama-server and a decoder at least)", started)
	}

	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("voice serve still runs a minute after Ctrl-C:\n%s%s", out.String(), errb.String())
	}
	if code != 130 || !strings.Contains(out.String(), "stopped llama-server (PID") {
		t.Errorf("exit %d (want 130 for Ctrl-C); stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for pid := range started {
		if syscall.Kill(pid, 0) == nil && childPIDs()[pid] {
			t.Errorf("process %d still runs after Ctrl-C", pid)
		}
	}
	t.Logf("%d events up to the first audio", len(seen))

	// Usage errors say what is wrong.
	if code, stdout, stderr := runCLI("voice", "serve", "extra"); code != 2 || !strings.Contains(stderr, `unexpected arguments ["extra"]`) {
		t.Errorf("voice serve extra: %d %s%s", code, stdout, stderr)
	}
	if code, stdout, _ := runCLI("voice", "serve", "-h"); code != 0 || !strings.Contains(stdout, "-max-tokens") {
		t.Errorf("voice serve -h: %d %s", code, stdout)
	}
}
