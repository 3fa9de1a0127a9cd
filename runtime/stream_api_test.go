package runtime

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/stream"
)

// apiServer answers the three streaming APIs in their own shapes and, when
// template is set, /apply-template; it keeps every request's path and
// body.
type apiServer struct {
	template bool
	mu       sync.Mutex
	paths    []string
	bodies   []map[string]any
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.paths, s.bodies = append(s.paths, r.URL.Path), append(s.bodies, body)
	s.mu.Unlock()
	sse := func(events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e+"\n\n")
			w.(http.Flusher).Flush()
		}
	}
	switch r.URL.Path {
	case "/apply-template":
		if !s.template {
			http.NotFound(w, r)
			return
		}
		var parts []string
		for _, m := range body["messages"].([]any) {
			mm := m.(map[string]any)
			parts = append(parts, "<"+mm["role"].(string)+">"+mm["content"].(string))
		}
		json.NewEncoder(w).Encode(map[string]string{"prompt": strings.Join(parts, "") + "<assistant>"})
	case "/v1/completions":
		sse(`data: {"choices":[{"text":"Hel","index":0,"finish_reason":null}],"object":"text_completion"}`,
			`data: {"choices":[{"text":"lo.","index":0,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"prompt_tokens_details":{"cached_tokens":8}}}`,
			`data: [DONE]`)
	case "/v1/responses":
		sse("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\"}}",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hel\"}",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"lo.\"}",
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_tokens\":4}}}}")
	default:
		http.NotFound(w, r)
	}
}

func (s *apiServer) start(t *testing.T) string {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestStreamAPIBodies: each API gets its path and body shape, the text
// and the end are read from its own events, and the prompt's tokens come
// from usage when no timings come. Fails before opts.api: stream() sent
// every request to /v1/chat/completions as messages.
func TestStreamAPIBodies(t *testing.T) {
	for _, template := range []bool{true, false} {
		s := &apiServer{template: template}
		vm, out := testVM(t, Config{Server: s.start(t)})
		err := vm.RunString(`
			local msgs = {{role = "system", content = "Be brief."}, {role = "user", content = "hi"}}
			for _, api in ipairs({"completions", "responses"}) do
				local chunks, total_ms, timings, info = stream(msgs, {api = api, max_tokens = 5})
				print(api, info.api, chunks[1].text .. chunks[2].text, info.done, info.finish_reason,
					info.prompt_tokens, info.cached_tokens, info.tokens_from, info.ttft_ms <= total_ms)
			end
			print(msgs[1].type)`, "s.lua")
		if err != nil {
			t.Fatal(err)
		}
		want := "completions\tcompletions\tHello.\ttrue\tstop\t12\t8\tusage\ttrue\n" +
			"responses\tresponses\tHello.\ttrue\tcompleted\t12\t4\tusage\ttrue\nnil\n"
		if out.String() != want {
			t.Fatalf("template %v: got\n%s\nwant\n%s", template, out.String(), want)
		}
		wantPaths := []string{"/apply-template", "/v1/completions", "/v1/responses"}
		prompt := "<system>Be brief.<user>hi<assistant>"
		if !template {
			prompt = "system: Be brief.\nuser: hi\nassistant:"
		}
		if strings.Join(s.paths, " ") != strings.Join(wantPaths, " ") {
			t.Fatalf("paths %v, want %v", s.paths, wantPaths)
		}
		comp, resp := s.bodies[1], s.bodies[2]
		if comp["prompt"] != prompt || comp["messages"] != nil || comp["max_tokens"] != 5.0 || comp["stream"] != true {
			t.Errorf("template %v: completions body %v", template, comp)
		}
		items, _ := resp["input"].([]any)
		if len(items) != 2 || resp["messages"] != nil || resp["max_tokens"] != nil || resp["max_output_tokens"] != 5.0 {
			t.Fatalf("responses body %v", resp)
		}
		for _, it := range items {
			if m := it.(map[string]any); m["type"] != "message" || m["role"] == nil || m["content"] == nil {
				t.Errorf("input item %v", m)
			}
		}
	}
}

// The server without /apply-template is asked once; a rendered prompt is
// not asked for again.
func TestCompletionPromptAsksOnce(t *testing.T) {
	for _, template := range []bool{true, false} {
		s := &apiServer{template: template}
		vm, _ := testVM(t, Config{Server: s.start(t), API: stream.APICompletions})
		if err := vm.RunString(`for _ = 1, 3 do stream("hi") end`, "s.lua"); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range s.paths {
			if p == "/apply-template" {
				n++
			}
		}
		if n != 1 || len(s.paths) != 4 {
			t.Errorf("template %v: paths %v, want /apply-template once", template, s.paths)
		}
	}
}

// opts.body's own prompt, input and max_output_tokens are sent as given,
// a prompt of token ids with no messages at all (an empty list) too; an
// empty list without the API's own prompt is refused; an unknown api is
// an error naming the three.
func TestStreamAPIOverrides(t *testing.T) {
	s := &apiServer{template: true}
	vm, _ := testVM(t, Config{Server: s.start(t)})
	err := vm.RunString(`
		stream("x", {api = "completions", body = {prompt = "raw prompt"}})
		stream("x", {api = "responses", max_tokens = 9, body = {input = "plain", max_output_tokens = 3}})
		stream({}, {api = "completions", body = {prompt = {5, 6, 7}}})`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.paths) != 3 || s.bodies[0]["prompt"] != "raw prompt" || s.bodies[1]["input"] != "plain" || s.bodies[1]["max_output_tokens"] != 3.0 {
		t.Fatalf("paths %v bodies %v", s.paths, s.bodies)
	}
	if ids, _ := json.Marshal(s.bodies[2]["prompt"]); s.paths[2] != "/v1/completions" || string(ids) != "[5,6,7]" || s.bodies[2]["messages"] != nil {
		t.Errorf("a prompt of ids: %s %v", s.paths[2], s.bodies[2])
	}
	for _, code := range []string{`stream({}, {api = "completions"})`, `stream({}, {api = "responses"})`, `stream({}, {body = {prompt = "p"}})`} {
		if err := vm.RunString(code, "s.lua"); err == nil || !strings.Contains(err.Error(), "messages is empty") {
			t.Errorf("%s: %v", code, err)
		}
	}
	err = vm.RunString(`stream("x", {api = "messages"})`, "s.lua")
	if err == nil || !strings.Contains(err.Error(), "chat, completions or responses") {
		t.Fatalf("err %v", err)
	}
}

// stream_many takes opts.api per request, and Config.API (--api) for the
// requests that set none.
func TestStreamManyAPI(t *testing.T) {
	s := &apiServer{}
	vm, out := testVM(t, Config{Server: s.start(t), API: stream.APIResponses})
	err := vm.RunString(`
		local results = stream_many({{"a"}, {"b", {api = "completions"}}}, {concurrency = 1})
		for i, r in ipairs(results) do print(i, r.info.api, r.info.done, r.info.ttft_ms ~= nil) end
		print(API)`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if want := "1\tresponses\ttrue\ttrue\n2\tcompletions\ttrue\ttrue\nresponses\n"; out.String() != want {
		t.Fatalf("got %q want %q", out.String(), want)
	}
}
