package runtime

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/stream"
	"ttftlab/internal/stream/streamtest"
)

func TestStreamOptionsAndResults(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Once", " upon", " a time"}, Usage: true}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: "http://127.0.0.1:1"}) // unused: opts.server wins
	err := vm.RunString(`
		local before = now_ms()
		local chunks, total_ms, timings, info = stream({{role = "system", content = "be brief"}, {role = "user", content = "hi"}},
			{max_tokens = 5, temperature = 0.5, server = "`+url+`/", body = {seed = 9, stream_options = {include_usage = true}}})
		local text = ""
		for _, c in ipairs(chunks) do text = text .. c.text end
		print(#chunks, text, timings.prompt_n, info.done, info.cut, info.closed_at_ms, info.finish_reason, info.status, info.lines, info.usage.prompt_tokens)
		local after = now_ms()
		print(info.ttft_ms == chunks[1].t_ms, total_ms >= chunks[#chunks].t_ms, chunks[2].t_ms >= chunks[1].t_ms, info.headers_ms <= info.ttft_ms)
		print(before <= info.t0_ms, info.t0_ms + total_ms <= after)`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := "3\tOnce upon a time\t11\ttrue\tfalse\tnil\tstop\t200\t7\t11\ntrue\ttrue\ttrue\ttrue\ntrue\ttrue\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	b := f.LastBody(t)
	if b["max_tokens"] != 5.0 || b["temperature"] != 0.5 || b["seed"] != 9.0 || b["cache_prompt"] != true || b["stream"] != true {
		t.Fatalf("request body = %v", b)
	}
	msgs := b["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "hi" {
		t.Fatalf("messages = %v", msgs)
	}
	if raw := f.Bodies()[0]; !strings.Contains(raw, `"max_tokens":5,`) || !strings.Contains(raw, `"seed":9,`) {
		t.Fatalf("integers must be sent without a fraction: %s", raw)
	}
}

func TestStreamSeedFormAndRawOut(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"a", "é", "c"}}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local chunks = stream("hello", 3, false, "raw/seed.txt")
		stream("hello", 3, nil, "raw/seed.txt")
		print(#chunks)`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "3\n" {
		t.Fatalf("output = %q", out.String())
	}
	first := f.Bodies()[0]
	sent := f.Sent()
	var b map[string]any
	json.Unmarshal([]byte(first), &b)
	if b["max_tokens"] != 3.0 || b["cache_prompt"] != false || b["seed"] != 7.0 || b["temperature"] != 0.0 {
		t.Fatalf("request body = %v", b)
	}
	if m := b["messages"].([]any)[0].(map[string]any); m["role"] != "user" || m["content"] != "hello" {
		t.Fatalf("a string must become one user message: %v", m)
	}
	if f.LastBody(t)["cache_prompt"] != true {
		t.Fatal("a nil cache_prompt must keep the default true")
	}
	raw, err := os.ReadFile(filepath.Join(vm.cfg.Out, "raw", "seed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != sent {
		t.Fatalf("raw_out must hold every byte of both answers, appended:\n got %q\nwant %q", raw, sent)
	}
}

func TestStreamOnChunkFalseCuts(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: strings.Split("a b c d e f g h i j k l m n o p", " "), Delay: 20 * time.Millisecond}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local seen = {}
		local chunks, total_ms, timings, info = stream("x", {on_chunk = function(c)
			seen[#seen + 1] = c.index .. "=" .. c.text
			if c.index == 2 then return false end
			-- nil (no return value) keeps going
		end})
		print(table.concat(seen, ","), #chunks, info.cut, info.closed_at_ms ~= nil, info.done, timings)`, "cut.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "1=a,2=b\t2\ttrue\ttrue\tfalse\tnil\n" {
		t.Fatalf("output = %q", out.String())
	}
	f.WaitGone(t)
}

func TestStreamOnChunkErrorPropagatesWithPosition(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: strings.Split("a b c d e f g h i j k l m n o p", " "), Delay: 20 * time.Millisecond}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local ok, msg = pcall(stream, "x", {raw_out = "cb.txt", on_chunk = function(c)
			if c.index == 2 then
				error("bad chunk " .. c.text)
			end
		end})
		print(ok, msg)
		stream("x", {on_chunk = function(c) local t = nil; return t.field end})`, "cb.lua")
	if out.String() != "false\tcb.lua:4: bad chunk b\n" {
		t.Fatalf("output = %q", out.String())
	}
	if err == nil {
		t.Fatal("expected the second callback error to end the script")
	}
	luatest.MustContain(t, err.Error(), "cb.lua:8: attempt to index")
	f.WaitGone(t)
	raw, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "cb.txt"))
	if !strings.Contains(string(raw), `"content":"b"`) {
		t.Fatalf("raw_out must have the bytes that arrived before the error: %q", raw)
	}
}

func TestStreamErrorsRaiseOrReturn(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"part", "ial"}, MidError: true}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local chunks, total_ms, timings, info = stream("x", {errors = "return", raw_out = "e.txt"})
		print(#chunks, chunks[1].text .. chunks[2].text, info.error ~= nil, info.done)
		print(info.error)
		stream("x", {raw_out = "e2.txt"})`, "e.lua")
	if err == nil {
		t.Fatal("without errors = \"return\" a failed stream must raise")
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "2\tpartial\ttrue\tfalse" {
		t.Fatalf("output = %q", out.String())
	}
	luatest.MustContain(t, lines[1], url, "slot failed")
	luatest.MustContain(t, err.Error(), "e.lua:5: stream: POST "+url+"/v1/chat/completions", "slot failed")
	raw, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "e2.txt"))
	if !strings.Contains(string(raw), "slot failed") {
		t.Fatalf("raw_out must be complete before the error is raised: %q", raw)
	}
}

func TestStreamConnectErrorNamesURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	vm, _ := testVM(t, Config{Server: url})
	err := vm.RunString(`stream("x")`, "c.lua")
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "c.lua:1: stream:", url)
}

func TestStreamKeepChunksFalse(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"a", "b", "c", "d"}}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local n = 0
		local chunks, _, _, info = stream("x", {keep_chunks = false, on_chunk = function() n = n + 1 end})
		print(#chunks, n, info.ttft_ms ~= nil)`, "k.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "0\t4\ttrue\n" {
		t.Fatalf("output = %q", out.String())
	}
}

// info says how the stamps were taken, and keep_reads lists every read:
// each chunk's t_ms is one of them, no read's t_ms comes after the read
// returned, and the counts agree.
func TestStreamStampSourceAndReads(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"a", "b", "c", "d"}, Delay: 2 * time.Millisecond}
	url := f.Start(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Server: url}, "kernel"},
		{Config{Server: url, NoKernelStamps: true}, "epoll-thread"},
		{Config{Server: url, Wire: stream.WireNetHTTP}, "go-netpoll"},
	} {
		if goruntime.GOOS != "linux" {
			c.want = "go-netpoll"
		}
		vm, out := testVM(t, c.cfg)
		err := vm.RunString(`
			local chunks, _, _, info = stream("x", {keep_reads = true})
			local at, ok = {}, info.reads == #info.read_stamps and info.read_pauses == 0
			local kernel = 0
			for _, r in ipairs(info.read_stamps) do
				at[r.t_ms] = true
				ok = ok and r.t_ms <= r.read_ms and r.bytes > 0 and r.source == info.stamp_source
				if r.source == "kernel" then kernel = kernel + 1 end
			end
			for _, c in ipairs(chunks) do ok = ok and at[c.t_ms] end
			print(info.stamp_source, ok, kernel == info.kernel_stamps, #chunks)
			local _, _, _, plain = stream("x")
			print(plain.read_stamps == nil, plain.reads > 0)`, "r.lua")
		if err != nil {
			t.Fatal(err)
		}
		if want := c.want + "\ttrue\ttrue\t4\ntrue\ttrue\n"; out.String() != want {
			t.Errorf("%+v: output %q, want %q", c.cfg, out.String(), want)
		}
	}
}

func TestStreamRejectsBadArguments(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	cases := map[string]string{
		`stream("x", {max_token = 5})`:                 `unknown option "max_token"`,
		`stream("x", {max_tokens = "5"})`:              "opts.max_tokens must be a number",
		`stream("x", {errors = "ignore"})`:             `opts.errors must be "raise"`,
		`stream({})`:                                   "messages is empty",
		`stream({{content = "no role"}})`:              "messages[1] must be a table with a string role",
		`stream(42)`:                                   "messages must be a string",
		`stream("x", {body = {1, 2}})`:                 "opts.body must be a table of request fields",
		`stream("x", {body = {t = 0/0}})`:              "t: NaN",
		`stream("x", {cut_after_ms = -1})`:             "must not be negative",
		`stream("x", {on_chunk = "f"})`:                "opts.on_chunk must be a function",
		`stream("x", {headers = {Authorization = 1}})`: "opts.headers must map strings to strings",
	}
	for code, want := range cases {
		err := vm.RunString(code, "a.lua")
		if err == nil {
			t.Errorf("%s: expected an error", code)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "a.lua:1:") {
			t.Errorf("%s: error %q should start with a.lua:1: and contain %q", code, err, want)
		}
	}
}

func TestStreamSendsHeadersAndPath(t *testing.T) {
	var gotPath, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\",\"index\":0}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	vm, _ := testVM(t, Config{Server: srv.URL})
	err := vm.RunString(`stream("x", {path = "/chat/completions", headers = {Authorization = "Bearer k"}})`, "h.lua")
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/chat/completions" || gotAuth != "Bearer k" {
		t.Fatalf("path %q auth %q", gotPath, gotAuth)
	}
}

func TestStreamTimerOptionsReachTheRequest(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: strings.Split("a b c d e f g h i j", " "), Delay: 40 * time.Millisecond}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local chunks, total_ms, _, info = stream("x", {cut_after_ms = 100})
		print(info.cut, info.closed_at_ms >= 100, #chunks < 10, info.error)
		local _, _, _, info2 = stream("x", {idle_timeout_ms = 10, errors = "return"})
		print(info2.error ~= nil, info2.cut)`, "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "true\ttrue\ttrue\tnil\ntrue\tfalse\n" {
		t.Fatalf("output = %q", out.String())
	}
}

// TestStreamSuggestsAnOptionName: a near miss names the nearest option.
func TestStreamSuggestsAnOptionName(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	err := vm.RunString(`stream("x", {max_token = 5})`, "s.lua")
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "s.lua:1:", `unknown option "max_token"`, `did you mean "max_tokens"?`)
}

// TestStreamInfoFirsts: the other first moments and the reasoning text
// reach the script.
func TestStreamInfoFirsts(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Yes."}}
	url := f.Start(t)
	vm, out := testVM(t, Config{Server: url})
	if err := vm.RunString(`local _, _, _, info = stream("q")
print(info.first_event_ms <= info.first_output_ms, info.first_output_ms == info.ttft_ms, info.first_reasoning_ms, info.reasoning)`, "f.lua"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "true\ttrue\tnil\tnil\n" {
		t.Errorf("printed %q", got)
	}
}
