package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/servers/servertest"
)

// hostedFake is a hosted API as voice teams meet it: 401 on every path
// without the right key, 404 on /health, a /v1/models list, and streamed
// chat completions. It keeps every request it saw.
type hostedFake struct {
	key    string
	models []string
	mu     sync.Mutex
	seen   []seenRequest
}

type seenRequest struct {
	Path, Auth, Model, Trace string
}

// startHosted serves a hostedFake that takes key and lists models, for
// the test's length, with the two key variables ttftlab reads set to
// openaiKey and ttftlabKey; it returns the fake and its URL.
func startHosted(t *testing.T, key, openaiKey, ttftlabKey string, models ...string) (*hostedFake, string) {
	t.Helper()
	fake := &hostedFake{key: key, models: models}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", openaiKey)
	t.Setenv("TTFTLAB_API_KEY", ttftlabKey)
	return fake, srv.URL
}

func (f *hostedFake) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

func (f *hostedFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var b struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &b)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Model: b.Model, Trace: r.Header.Get("X-Trace")})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	switch r.URL.Path {
	case "/v1/models":
		var data []string
		for _, m := range f.models {
			data = append(data, fmt.Sprintf(`{"id":%q,"object":"model"}`, m))
		}
		fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(data, ","))
	case "/v1/chat/completions":
		if b.Model == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"you must provide a model parameter"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"not found"}}`)
	}
}

// endpointScript streams once and writes what server_info() says of the
// endpoint, and what get() of /v1/models answered, into the out folder.
const endpointScript = `
local chunks = stream({{role = "user", content = "hi"}})
local text = {}
for _, c in ipairs(chunks) do text[#text + 1] = c.text end
local status = get("/v1/models")
write_json("endpoint.json", {endpoint = server_info().endpoint, text = table.concat(text), models_status = status})
print("streamed: " .. table.concat(text))
`

func epScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostedAPIEndpoint: the key from OPENAI_API_KEY, a base ending in /v1,
// the one model /v1/models lists sent as "model", an extra header on every
// request, and the key in no output.
// Fails before this change: no request carried a key or a model.
func TestHostedAPIEndpoint(t *testing.T) {
	const key = "sk-hosted-4f1d9c2b7e"
	fake, url := startHosted(t, key, key, "", "gpt-test-mini")
	out := t.TempDir()
	script := epScript(t, endpointScript)
	code, stdout, stderr := runCLI("run", script, "--server", url+"/v1", "--out", out,
		"--header", "X-Trace: run-7", "--header", "X-Org-Token: tok-"+key)
	t.Logf("run:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "streamed: Hello.") {
		t.Fatalf("run against the hosted fake exited %d", code)
	}
	if !strings.Contains(stderr, "API key from OPENAI_API_KEY") {
		t.Errorf("stderr does not say where the key came from: %q", stderr)
	}
	// Before the stream, the probe, the model list, the key check and the
	// kind detection ask each path once (after it, the state the run
	// ended in is asked anew).
	asked := map[string]int{}
	for _, r := range fake.requests() {
		if r.Path == "/v1/chat/completions" {
			break
		}
		if asked[r.Path]++; asked[r.Path] > 1 {
			t.Errorf("%s asked %d times before the stream", r.Path, asked[r.Path])
		}
	}
	for _, r := range fake.requests() {
		if r.Auth != "Bearer "+key || r.Trace != "run-7" {
			t.Errorf("%s came without the endpoint's headers: auth set %v, X-Trace %q", r.Path, r.Auth != "", r.Trace)
		}
		if strings.HasPrefix(r.Path, "/v1/v1") {
			t.Errorf("the /v1 base was doubled: %s", r.Path)
		}
		if r.Path == "/v1/chat/completions" && r.Model != "gpt-test-mini" {
			t.Errorf("the stream sent model %q, want the one /v1/models lists", r.Model)
		}
	}
	var got struct {
		Endpoint     map[string]any `json:"endpoint"`
		ModelsStatus float64        `json:"models_status"`
	}
	readJSON(t, filepath.Join(out, "endpoint.json"), &got)
	if got.Endpoint["api_key"] != "set from OPENAI_API_KEY" || got.Endpoint["model"] != "gpt-test-mini" ||
		got.Endpoint["url"] != url+"/v1" || got.ModelsStatus != 200 {
		t.Errorf("server_info().endpoint = %v, get(/v1/models) = %v", got.Endpoint, got.ModelsStatus)
	}
	if h, _ := got.Endpoint["headers"].(map[string]any); h["X-Org-Token"] != "[redacted]" || h["X-Trace"] != "run-7" {
		t.Errorf("headers shown as %v, want X-Org-Token redacted and X-Trace shown", got.Endpoint["headers"])
	}
	requireNoKey(t, key, out, stdout, stderr)
}

// TestHostedAPINoKey: without a key the run stops at once with the
// server's own message and a hint naming --api-key; a wrong key too.
func TestHostedAPINoKey(t *testing.T) {
	const key = "sk-hosted-a83c51"
	for _, c := range []struct {
		name, env, want string
	}{
		{"none", "", "pass it with --api-key KEY"},
		{"wrong", "sk-wrong-key-9", "refused the API key from TTFTLAB_API_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake, url := startHosted(t, key, "", c.env, "m")
			code, stdout, stderr := runCLI("run", epScript(t, endpointScript), "--server", url+"/v1", "--out", t.TempDir())
			if code != 1 || !strings.Contains(stderr, "Incorrect API key provided.") || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, want 1 with the server's message and %q:\n%s%s", code, c.want, stdout, stderr)
			}
			// The health probe as each kind answers (/health, Ollama's
			// /api/version, /v1/models, whose answer is also the model
			// list): no retries.
			if n := len(fake.requests()); n > 3 {
				t.Errorf("the server saw %d requests before ttftlab stopped, want at most 3 (health, api/version, models)", n)
			}
			if c.env != "" {
				requireNoKey(t, c.env, "", stdout, stderr)
			}
		})
	}
}

// TestModelsAskedOnce: a hosted API (no /health, no /api/version) is asked
// GET /v1/models once per run: the health probe's answer is the model list
// and, with a wrong key, the refusal, with the server's own message.
func TestModelsAskedOnce(t *testing.T) {
	const key = "sk-once-5e21"
	for _, c := range []struct {
		name, env string
		code      int
		want      string
	}{
		{"wrong key", "sk-wrong-key-31", 1, "refused the API key from TTFTLAB_API_KEY"},
		{"right key", key, 0, "streamed: Hello."},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake, url := startHosted(t, key, "", c.env, "m")
			script := epScript(t, `local cs = stream({{role = "user", content = "hi"}})
local text = {}
for _, ch in ipairs(cs) do text[#text + 1] = ch.text end
print("streamed: " .. table.concat(text))`)
			code, stdout, stderr := runCLI("run", script, "--server", url+"/v1", "--out", t.TempDir())
			if code != c.code || !strings.Contains(stdout+stderr, c.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s%s", code, c.code, c.want, stdout, stderr)
			}
			if c.code != 0 && !strings.Contains(stderr, "Incorrect API key provided.") {
				t.Errorf("the server's own message is missing:\n%s", stderr)
			}
			per := map[string]int{}
			for _, r := range fake.requests() {
				per[r.Path]++
			}
			if per["/v1/models"] != 1 {
				t.Errorf("GET /v1/models asked %d times, want once; requests per path: %v", per["/v1/models"], per)
			}
		})
	}
}

// TestLabWrongKey: the lab, which would start a server where none answers,
// meets a hosted API that refuses its key: it says the key was refused,
// with the server's message, not that something other than an LLM server
// answers, and asks /v1/models once.
// Fails before this change: "something answers at ..., but not as an LLM
// server: GET /health gave HTTP 401", with --server as the way out.
func TestLabWrongKey(t *testing.T) {
	fake, url := startHosted(t, "sk-lab-right-8d", "", "sk-lab-wrong-2c", "m")
	code, stdout, stderr := runCLI("lab", "--server", url+"/v1", "--out", t.TempDir(), "--no-report", "--", "ttft")
	if code != 1 || !strings.Contains(stderr, "Incorrect API key provided.") ||
		!strings.Contains(stderr, "refused the API key from TTFTLAB_API_KEY") || strings.Contains(stderr, "not as an LLM server") {
		t.Fatalf("exit %d, want 1 saying the key was refused, with the server's message:\n%s%s", code, stdout, stderr)
	}
	n := 0
	for _, r := range fake.requests() {
		if r.Path == "/v1/models" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("GET /v1/models asked %d times, want once", n)
	}
	requireNoKey(t, "sk-lab-wrong-2c", "", stdout, stderr)
}

// TestModelName: several models listed stop the run and name them;
// --model-name picks one; a script's own body.model wins.
func TestModelName(t *testing.T) {
	const key = "sk-models-77"
	fake, url := startHosted(t, key, "", "", "chat-a", "embed-b", "whisper-c")
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	script := epScript(t, endpointScript)
	code, stdout, stderr := runCLI("run", script, "--server", url, "--api-key-file", keyFile, "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "chat-a, embed-b, whisper-c") || !strings.Contains(stderr, "--model-name") {
		t.Fatalf("several models: exit %d, want 1 naming them and --model-name:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("run", script, "--server", url, "--api-key-file", keyFile, "--model-name", "chat-a", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("--model-name: exit %d:\n%s%s", code, stdout, stderr)
	}
	own := epScript(t, `stream({{role = "user", content = "hi"}}, {body = {model = "mine"}})`)
	if code, stdout, stderr = runCLI("run", own, "--server", url, "--api-key-file", keyFile, "--model-name", "chat-a", "--out", t.TempDir()); code != 0 {
		t.Fatalf("body.model: exit %d:\n%s%s", code, stdout, stderr)
	}
	var models []string
	for _, r := range fake.requests() {
		if r.Path == "/v1/chat/completions" {
			models = append(models, r.Model)
		}
	}
	if strings.Join(models, ",") != "chat-a,mine" {
		t.Errorf("models sent: %v, want chat-a (--model-name) then mine (the script's body)", models)
	}
	if !strings.Contains(stderr, "API key from --api-key-file") {
		t.Errorf("stderr does not name the key file as the source: %q", stderr)
	}
}

// echoingServer is a hosted API behind a gateway that echoes the
// Authorization header it received: in a comment at the start of every
// stream (cut in two writes mid-key), in a 500 body (every 4th chat
// request from the 2nd), in an error event ending the stream (every 4th
// from the 4th), and in the 404 body of /props.
func echoingServer(t *testing.T, key string) string {
	fake := &servertest.Fake{Kind: servertest.Hosted, Key: key, RequireModel: true}
	var chats atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch {
		case r.URL.Path == "/props":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, "no route for GET /props (request headers: Authorization: %s)", auth)
			return
		case r.URL.Path != "/v1/chat/completions" || auth != "Bearer "+key:
			fake.ServeHTTP(w, r)
			return
		}
		switch chats.Add(1) % 4 {
		case 2:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":{"message":"bad request with header Authorization: %s","type":"server_error"}}`, auth)
		case 0:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\"}}]}\n\n")
			fmt.Fprintf(w, "data: {\"error\":{\"code\":500,\"message\":\"upstream failed for Authorization: %s\",\"type\":\"server_error\"}}\n\n", auth)
		default:
			fake.ServeHTTP(&echoWriter{ResponseWriter: w, auth: auth}, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// echoWriter writes a comment holding the Authorization header before
// the first bytes of the answer, in two writes cut inside the key.
type echoWriter struct {
	http.ResponseWriter
	auth    string
	written bool
}

func (e *echoWriter) Write(p []byte) (int, error) {
	if !e.written {
		e.written = true
		half := len(e.auth) - 5
		fmt.Fprintf(e.ResponseWriter, ": proxy debug: Authorization: %s", e.auth[:half])
		e.Flush()
		time.Sleep(2 * time.Millisecond)
		fmt.Fprintf(e.ResponseWriter, "%s\n\n", e.auth[half:])
	}
	return e.ResponseWriter.Write(p)
}

func (e *echoWriter) Flush() { e.ResponseWriter.(http.Flusher).Flush() }

// echoScript streams four times (the answers of echoingServer: a stream,
// a 500, a stream, an error event), the first three returning their
// errors, each into raw.txt, and writes what came back; the last raises.
const echoScript = `
local rows = {}
for i = 1, 3 do
  local chunks, total, timings, info = stream({{role = "user", content = "hi"}}, {errors = "return", raw_out = "raw.txt"})
  local text = {}
  for _, c in ipairs(chunks) do text[#text + 1] = c.text end
  rows[i] = {text = table.concat(text), error = info.error}
  print(i, info.error or table.concat(text))
end
local status, body = get("/props")
rows[#rows + 1] = {props = body}
print(body)
write_json("rows.json", rows)
stream({{role = "user", content = "hi"}}, {raw_out = "raw.txt"})
`

// TestEchoedKeyScrubbed: a gateway that echoes the Authorization header
// in its error bodies, its error events and its streams; run, load and
// lab with the key from --api-key, TTFTLAB_API_KEY, OPENAI_API_KEY and
// --api-key-file; then check and report on each folder. The key is in no
// file of the output and state folders, and in no output; the server's
// words are there, the key [redacted].
// Fails before this change: "HTTP 500 ... Authorization: Bearer sk-..."
// in the output, load.json, requests.jsonl, requests.csv, steps.json,
// sse_raw.txt and report.html.
func TestEchoedKeyScrubbed(t *testing.T) {
	const key = "sk-echoed-3b7c90d4e1"
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	t.Setenv("TTFTLAB_STATE", state)
	for _, src := range []struct {
		name, env string
		args      []string
	}{
		{"flag", "", []string{"--api-key", key}},
		{"TTFTLAB_API_KEY", "TTFTLAB_API_KEY", nil},
		{"OPENAI_API_KEY", "OPENAI_API_KEY", nil},
		{"file", "", []string{"--api-key-file", keyFile}},
	} {
		t.Run(src.name, func(t *testing.T) {
			t.Setenv("TTFTLAB_API_KEY", "")
			t.Setenv("OPENAI_API_KEY", "")
			if src.env != "" {
				t.Setenv(src.env, key)
			}
			for _, cmd := range [][]string{
				{"run", epScript(t, echoScript)},
				{"load", "--concurrency", "1", "--requests", "8", "--docs", "0"},
				{"lab"},
			} {
				out := t.TempDir()
				args := append(append(append([]string{}, cmd...), "--server", echoingServer(t, key), "--out", out), src.args...)
				code, stdout, stderr := runCLI(args...)
				t.Logf("%s: exit %d\n%s%s", cmd[0], code, stdout, stderr)
				if !strings.Contains(stdout+stderr, "Authorization: Bearer [redacted]") {
					t.Errorf("%s: the server's words, the key redacted, are missing from the output", cmd[0])
				}
				_, checkOut, checkErr := runCLI("check", out)
				_, reportOut, reportErr := runCLI("report", out)
				requireNoKey(t, key, out, stdout, stderr, checkOut, checkErr, reportOut, reportErr)
				files := map[string]bool{}
				filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
					if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "Bearer [redacted]") {
						files[filepath.Base(p)] = true
					}
					return nil
				})
				t.Logf("%s: the redacted key is in %v", cmd[0], files)
				want := map[string][]string{"run": {"raw.txt", "rows.json"},
					"load": {"load.json", "requests.jsonl", "requests.csv", "report.html"},
					"lab":  {"sse_raw.txt", "steps.json", "report.html"}}[cmd[0]]
				for _, f := range want {
					if !files[f] {
						t.Errorf("%s: %s does not hold the server's words with the key redacted", cmd[0], f)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(state, "servers")); err == nil {
				requireNoKey(t, key, state)
			}
		})
	}
}

// TestServerURLPasswordHidden: a --server (or --tts) with a password is
// refused, exit 2, showing it as user:xxxxx@, never the password; a URL
// that does not parse too.
// Fails before this change: the message quoted the URL whole.
func TestServerURLPasswordHidden(t *testing.T) {
	script := epScript(t, `print("ran")`)
	for _, args := range [][]string{
		{"run", script, "--server", "http://user:pw-41ce9@127.0.0.1:1"},
		{"lab", "--server", "http://user:pw-41ce9@127.0.0.1:1"},
		{"load", "--server", "http://user:pw-41ce9@127.0.0.1:badport"},
		{"repl", "--server", "http://user:pw-41ce9@127.0.0.1:1"},
		{"lab", "--tts", "http://user:pw-41ce9@127.0.0.1:1"},
	} {
		code, stdout, stderr := runCLI(append(args, "--out", t.TempDir())...)
		if code != 2 || !strings.Contains(stderr, "user:xxxxx@127.0.0.1:") || strings.Contains(stdout+stderr, "pw-41ce9") {
			t.Errorf("%v: exit %d, want 2 showing user:xxxxx@ and not the password:\n%s%s", args, code, stdout, stderr)
		}
	}
}
