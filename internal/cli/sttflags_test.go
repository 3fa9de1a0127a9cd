package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/stt/stttest"
)

// TestSTTFlagsRefused: speech-to-text flags that cannot work are usage
// errors (exit 2), said once with the synopsis, before anything starts;
// the key is shown in none of them.
func TestSTTFlagsRefused(t *testing.T) {
	const key = "sk-ears-41c9d2"
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte(`print("ran")`), 0o644)
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(key), 0o600)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("no audio here"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a URL of another scheme", []string{"--stt", "ftp://127.0.0.1:9"}, `--stt "ftp://127.0.0.1:9": want http://HOST:PORT or ws://HOST:PORT/PATH`},
		{"a URL with a query", []string{"--stt", "ws://127.0.0.1:9/v1/realtime?model=x", "--stt-api-key", key}, "without a query"},
		{"an unknown protocol", []string{"--stt", "http://127.0.0.1:9", "--stt-api", "grpc"}, `unknown speech-to-text API "grpc"`},
		{"an upload over a WebSocket", []string{"--stt", "ws://127.0.0.1:9/v1/realtime", "--stt-api", "whisper"}, "--stt-api whisper uploads over HTTP"},
		{"a key and a key file", []string{"--stt", "http://127.0.0.1:9", "--stt-api-key", key, "--stt-api-key-file", keyFile}, "--stt-api-key and --stt-api-key-file both set"},
		{"a key without a server", []string{"--stt-api-key", key}, "--stt-api-key: the caller's side needs a speech-to-text server"},
		{"caller audio without a server", []string{"--caller-audio", empty}, "--caller-audio: the caller's side needs a speech-to-text server"},
		{"a missing audio folder", []string{"--stt", "default", "--caller-audio", filepath.Join(dir, "nowhere")}, "--caller-audio: the caller's audio folder: open " + filepath.Join(dir, "nowhere")},
		{"an audio folder without WAV", []string{"--stt", "default", "--caller-audio", empty}, "holds no .wav file"},
		{"a voice beside the audio", []string{"--stt", "default", "--caller-audio", empty, "--caller-voice", "en-us"}, "--caller-voice and --caller-audio both set"},
		{"a frame too short", []string{"--stt", "default", "--stt-frame-ms", "1"}, "-stt-frame-ms: want a value from 5 to 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir()}, c.args...)
			code, stdout, stderr := runCLI(args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, c.want)
			}
			if n := strings.Count(stderr, "Usage: "); n != 1 || strings.Count(stderr, c.want) != 1 {
				t.Errorf("the usage and the error must be said once each: %q", stderr)
			}
			if strings.Contains(stdout+stderr, key) || strings.Contains(stdout, "ran") {
				t.Errorf("the key shown, or the script ran: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestSTTFlagsKeySource: a key of the speech-to-text server's own is said
// by where it came from, never by its value, on stderr and in
// stt_info(); the run goes on with the caller's audio folder, which is
// read only when a turn speaks.
func TestSTTFlagsKeySource(t *testing.T) {
	const key = "sk-ears-41c9d2"
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte(`local i = stt_info() print(i.url, i.api, i.engine, i.api_key, i.caller_audio == arg[1], i.cpu_ms)`), 0o644)
	audio := filepath.Join(dir, "audio")
	os.Mkdir(audio, 0o755)
	os.WriteFile(filepath.Join(audio, "q1.wav"), []byte("RIFF"), 0o644)
	for _, c := range []struct {
		args   []string
		env    string
		source string
	}{
		{[]string{"--stt-api-key", key}, "", "--stt-api-key"},
		{nil, key, "TTFTLAB_STT_API_KEY"},
	} {
		t.Setenv("TTFTLAB_STT_API_KEY", c.env)
		args := append([]string{"run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(),
			"--stt", "wss://127.0.0.1:9/v1/realtime", "--caller-audio", audio}, c.args...)
		code, stdout, stderr := runCLI(append(args, "--", audio)...)
		if want := "wss://127.0.0.1:9/v1/realtime\trealtime\t\tset from " + c.source + "\ttrue\tnil\n"; code != 0 || stdout != want {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, key) || !strings.Contains(stderr, "speech-to-text: API key from "+c.source) {
			t.Fatalf("the key shown, or its source not said: %q", stderr)
		}
	}
}

// TestSTTFlagsReachListen: --stt, its key and header, --caller-audio and
// --stt-language reach listen(): the upload carries the key, the header
// and the language, and the caller's audio is the folder's file. A server
// that refuses the key and quotes it back does not get it shown.
func TestSTTFlagsReachListen(t *testing.T) {
	const key = "sk-ears-41c9d2"
	dir := t.TempDir()
	audio := filepath.Join(dir, "audio")
	os.Mkdir(audio, 0o755)
	clip := &callaudio.Clip{Rate: 16000, Samples: make([]int16, 8000)}
	for i := 2000; i < 6000; i++ {
		clip.Samples[i] = int16(8000 * (i%2*2 - 1))
	}
	os.WriteFile(filepath.Join(audio, "q1.wav"), clip.WAV(), 0o644)
	os.WriteFile(filepath.Join(audio, "q1.txt"), []byte("Good morning."), 0o644)
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte(`local h = listen("anything") print(h.text, h.said, h.wer, h.api)`), 0o644)
	run := func(f *stttest.Server) (int, string, string) {
		stttest.Start(f)
		defer f.Close()
		return runCLI("run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(), "--stt", f.URL,
			"--stt-api-key", key, "--stt-header", "X-Team: ears", "--stt-language", "en", "--caller-audio", audio)
	}
	f := &stttest.Server{Text: "good morning"}
	code, stdout, stderr := run(f)
	if code != 0 || stdout != "good morning\tGood morning.\t0\topenai\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got := f.Received()
	if len(got) != 1 {
		t.Fatalf("%d uploads, want 1", len(got))
	}
	if got[0].Header.Get("Authorization") != "Bearer "+key || got[0].Header.Get("X-Team") != "ears" || got[0].Fields["language"] != "en" {
		t.Fatalf("the upload's headers %v, fields %v", got[0].Header, got[0].Fields)
	}
	code, stdout, stderr = run(&stttest.Server{Status: http.StatusUnauthorized})
	if code != 1 || !strings.Contains(stderr, "--stt-api-key") {
		t.Errorf("a refused key: exit %d, stderr %q", code, stderr)
	}
	for _, out := range []string{stdout, stderr} {
		if strings.Contains(out, key) {
			t.Errorf("the key shown: %q", out)
		}
	}
}

// TestSTTDefault: --stt default serves pocketsphinx for the run, said
// once, and listen() reaches it over its Realtime session: the server's
// speech stop and the transcript come after the caller's speech end.
func TestSTTDefault(t *testing.T) {
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	realEspeak(t)
	script := filepath.Join(t.TempDir(), "s.lua")
	os.WriteFile(script, []byte(`
		local h = listen("What time does the clinic open on Saturday?")
		assert(h.speech_stopped_ms > h.speech_end_ms and h.final_ms >= h.speech_stopped_ms,
			"speech end " .. h.speech_end_ms .. ", stopped " .. tostring(h.speech_stopped_ms) .. ", final " .. h.final_ms)
		local i = stt_info()
		assert(i.engine == h.engine and i.api == "realtime" and i.cpu_ms >= 0, "stt_info: " .. tostring(i.engine) .. " " .. tostring(i.cpu_ms))
		print(h.api, h.engine, #h.text > 0, h.wer ~= nil)`), 0o644)
	code, stdout, stderr := runCLI("run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(), "--stt", "default")
	if code != 0 || !strings.HasSuffix(stdout, "realtime\t"+pocketsphinxVersion(t)+"\ttrue\ttrue\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Count(stdout, "speech-to-text: pocketsphinx") != 1 || !strings.Contains(stdout, "(realtime) for this run") {
		t.Errorf("the engine must be said once, with its protocol: %q", stdout)
	}
}

// pocketsphinxVersion is the installed engine's name.
func pocketsphinxVersion(t *testing.T) string {
	bin, err := pocketsphinx.Find()
	if err != nil {
		t.Fatal(err)
	}
	return pocketsphinx.Version(bin)
}

// TestLabListenStepFromScript: a lab whose step listens to a caller gets
// the default speech-to-text engine when that step runs (the script's
// preflight returns {stt = true}), and none when only another step runs;
// with no engine to be had the run goes on without one and says so.
func TestLabListenStepFromScript(t *testing.T) {
	t.Setenv("TTFTLAB_STT", "") // the tests' --stt none would keep the default away
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" {
			w.Write([]byte(`{"status":"ok"}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"message":"not found"}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	lab := `
if PREFLIGHT then return { stt = arg[1] == "hear" } end
local info, why = stt_info()
write_json("stt.json", { stt = info ~= nil, engine = info and info.engine, why = why })
`
	os.WriteFile(filepath.Join(dir, "scripts", "lab.lua"), []byte(lab), 0o644)
	t.Chdir(dir)
	for _, c := range []struct {
		name, step string
		listen     bool
		flags      []string
	}{{"hear", "hear", true, nil}, {"plain", "plain", false, nil},
		// --stt none: a step that would listen gets no engine, none is
		// looked for.
		{"none", "hear", false, []string{"--stt", "none"}}} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"lab", "--server", srv.URL, "--out", out, "--no-report"}, c.flags...)
			code, stdout, stderr := runCLI(append(args, "--", c.step)...)
			if code != 0 {
				t.Fatalf("lab -- %s exited %d:\n%s%s", c.step, code, stdout, stderr)
			}
			var got struct {
				STT    bool   `json:"stt"`
				Engine string `json:"engine"`
				Why    string `json:"why"`
			}
			readJSON(t, filepath.Join(out, "stt.json"), &got)
			noEngine := strings.Contains(stderr, "speech-to-text: no default engine")
			switch {
			case c.listen && !(got.STT && strings.HasPrefix(got.Engine, "pocketsphinx")) && !noEngine:
				t.Errorf("step %s listens: the script saw no engine (%s) and the command said nothing of it:\n%s%s", c.step, got.Why, stdout, stderr)
			case !c.listen && (got.STT || strings.Contains(stdout+stderr, "speech-to-text:")):
				t.Errorf("step %s listens to nobody, but an engine was started or looked for:\n%s%s", c.step, stdout, stderr)
			}
		})
	}
}

// TestCallerVoiceChecked: a --caller-voice espeak-ng does not have is a
// usage error (exit 2) naming the voice, with the nearest one it has,
// before the script runs and before any request reaches the
// speech-to-text server; a voice it has speaks the caller's turn.
func TestCallerVoiceChecked(t *testing.T) {
	needCallerVoice(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte(`print("ran") local h = listen("Good morning.") print(h.text)`), 0o644)
	run := func(f *stttest.Server, voice string) (int, string, string) {
		stttest.Start(f)
		defer f.Close()
		return runCLI("run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(), "--stt", f.URL, "--caller-voice", voice)
	}
	for _, c := range []struct{ voice, want string }{
		{"nosuchvoice", `--caller-voice "nosuchvoice": espeak-ng has no voice "nosuchvoice"`},
		{"en-uz+f3", `--caller-voice "en-uz+f3": espeak-ng has no voice "en-uz" (see ` + "`"},
		{"en-uz+f3", `; did you mean "en-us+f3"?`},
	} {
		f := &stttest.Server{Text: "good morning"}
		code, stdout, stderr := run(f, c.voice)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "Usage: ") != 1 {
			t.Fatalf("--caller-voice %s: exit %d, stderr %q; want exit 2, %q and the usage once", c.voice, code, stderr, c.want)
		}
		if strings.Contains(stdout, "ran") || len(f.Received()) != 0 {
			t.Fatalf("--caller-voice %s: the script ran (stdout %q) or %d requests reached the server", c.voice, stdout, len(f.Received()))
		}
	}
	f := &stttest.Server{Text: "good morning"}
	code, stdout, stderr := run(f, "en-us")
	if code != 0 || stdout != "ran\ngood morning\n" || len(f.Received()) != 1 {
		t.Fatalf("--caller-voice en-us: exit %d, stdout %q, stderr %q, %d uploads", code, stdout, stderr, len(f.Received()))
	}
}
