package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// captureEvent is one event of a capture as an independent reading sees
// it: what it carries and the offset of the LF that ends its last data
// line (the byte whose read completes the event).
type captureEvent struct {
	typ      string
	data     map[string]any
	raw      string
	lineEnds int
}

// readCapture splits a capture (LF line ends, as llama-server writes)
// into events without the sse package, so the reader is checked against
// a second reading.
func readCapture(t *testing.T, capture []byte) []captureEvent {
	t.Helper()
	var evs []captureEvent
	var cur captureEvent
	off := 0
	for _, line := range strings.SplitAfter(string(capture), "\n") {
		end := off + len(line) - 1
		off += len(line)
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if cur.raw != "" {
				if cur.raw != "[DONE]" {
					if err := json.Unmarshal([]byte(cur.raw), &cur.data); err != nil {
						t.Fatalf("capture event %q: %v", cur.raw, err)
					}
				}
				evs = append(evs, cur)
			}
			cur = captureEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.raw, cur.lineEnds = strings.TrimPrefix(line, "data: "), end
		}
	}
	return evs
}

// firstsOf is what the reader must find in a capture: the content, and
// for each "first" the event that carries it (-1: none).
type expectFirsts struct {
	text                                   string
	event, progress, reasoning, tool, ttft int
	done                                   bool
	finish                                 string
	hasTimings, hasUsage                   bool
}

// expectOf reads the firsts of docs/ttft.md off the capture's events, by
// the definitions for api.
func expectOf(api API, evs []captureEvent) expectFirsts {
	e := expectFirsts{event: 0, progress: -1, reasoning: -1, tool: -1, ttft: -1}
	var text strings.Builder
	for i, ev := range evs {
		if ev.raw == "[DONE]" {
			e.done = true
			continue
		}
		if ev.data["prompt_progress"] != nil && e.progress < 0 {
			e.progress = i
		}
		if ev.data["timings"] != nil {
			e.hasTimings = true
		}
		content := ""
		switch api {
		case APIChat, APICompletions:
			if ev.data["usage"] != nil {
				e.hasUsage = true
			}
			choices, _ := ev.data["choices"].([]any)
			if len(choices) == 0 {
				continue
			}
			ch := choices[0].(map[string]any)
			if f, ok := ch["finish_reason"].(string); ok {
				e.finish = f
			}
			if api == APICompletions {
				content, _ = ch["text"].(string)
			} else {
				delta := ch["delta"].(map[string]any)
				content, _ = delta["content"].(string)
			}
		case APIResponses:
			switch ev.data["type"] {
			case respTextDelta:
				content = ev.data["delta"].(string)
			case respCompleted:
				e.done, e.finish = true, "completed"
				resp := ev.data["response"].(map[string]any)
				e.hasUsage = resp["usage"] != nil
			}
		}
		if content != "" {
			if e.ttft < 0 {
				e.ttft = i
			}
			text.WriteString(content)
		}
	}
	e.text = text.String()
	return e
}

// feed runs the reader's event handling on the pieces, each stamped with
// its position (1, 2, ...) as the read that brought it, and returns the
// result and whether the reader stopped at the stream's end.
func feed(api API, pieces ...[]byte) (*Result, bool, error) {
	r := &run{req: Request{API: api}, res: &Result{}, url: "http://127.0.0.1:1/v1"}
	for i, p := range pieces {
		at := time.Duration(i+1) * time.Millisecond
		if stop, err := r.parse(p, stamp{at: at, read: at, src: SourceEpoll}); stop || err != nil {
			return r.res, stop, err
		}
	}
	return r.res, false, nil
}

var captures = []struct {
	api  API
	file string
}{
	{APIChat, "testdata/llama_capture.sse"},
	{APICompletions, "testdata/llama_completions_capture.sse"},
	{APIResponses, "testdata/llama_responses_capture.sse"},
}

// TestCapturesAtEveryByteBoundary reads each API's capture of Debian's
// llama-server build 11669, split in two reads at every byte boundary: the
// text, the end, the timings and every first must come out the same, and
// each first must carry the stamp of the read that completed its event's
// data line. Fails before the completions and responses readers: those
// streams were read as chat chunks, the completions text was lost and the
// Responses events were refused.
func TestCapturesAtEveryByteBoundary(t *testing.T) {
	for _, c := range captures {
		t.Run(c.api.String(), func(t *testing.T) {
			capture, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			evs := readCapture(t, capture)
			want := expectOf(c.api, evs)
			if want.text == "" || want.ttft < 0 || !want.done || !want.hasTimings {
				t.Fatalf("the capture lacks what this test needs: %+v", want)
			}
			stampOf := func(i, k int) *float64 {
				if i < 0 {
					return nil
				}
				v := 1.0
				if evs[i].lineEnds >= k {
					v = 2
				}
				return &v
			}
			for k := 0; k <= len(capture); k++ {
				res, stopped, err := feed(c.api, capture[:k], capture[k:])
				if err != nil {
					t.Fatalf("split at %d: %v", k, err)
				}
				var text strings.Builder
				for _, ch := range res.Chunks {
					text.WriteString(ch.Text)
				}
				info := res.Info
				ttft := (*float64)(nil)
				if info.HasTTFT {
					ttft = &info.TTFTMs
				}
				got := []*float64{info.FirstEventMs, info.FirstProgressMs, info.FirstReasoningMs, info.FirstToolCallMs, ttft, info.FirstOutputMs}
				exp := []*float64{stampOf(want.event, k), stampOf(want.progress, k), stampOf(want.reasoning, k), stampOf(want.tool, k), stampOf(want.ttft, k), stampOf(want.ttft, k)}
				for i, name := range []string{"event", "progress", "reasoning", "tool call", "ttft", "output"} {
					if !reflect.DeepEqual(got[i], exp[i]) {
						t.Fatalf("split at %d: first %s %v, want %v", k, name, show(got[i]), show(exp[i]))
					}
				}
				switch {
				case text.String() != want.text:
					t.Fatalf("split at %d: text %q, want %q", k, text.String(), want.text)
				case !stopped || !info.Done:
					t.Fatalf("split at %d: the reader did not stop at the stream's end (done %v)", k, info.Done)
				case info.FinishReason != want.finish:
					t.Fatalf("split at %d: finish %q, want %q", k, info.FinishReason, want.finish)
				case res.Timings == nil:
					t.Fatalf("split at %d: no timings", k)
				case want.hasUsage != (info.Usage != nil):
					t.Fatalf("split at %d: usage %v, want one: %v", k, info.Usage, want.hasUsage)
				}
			}
		})
	}
}

func show(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// TestResponsesFirsts: each first of a Responses stream is told apart,
// in events shaped as OpenAI documents them (sequence numbers, reasoning,
// a function call) and as llama-server sends them (timings at the top
// level of response.completed).
func TestResponsesFirsts(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	created := ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress"}}`)
	progress := ev("response.in_progress", `{"type":"response.in_progress","response":{"status":"in_progress"},"prompt_progress":{"total":9,"cache":0,"processed":9,"time_ms":1}}`)
	reasoning := ev(respReasoningDelta, `{"type":"response.reasoning_text.delta","sequence_number":2,"item_id":"rs","output_index":0,"content_index":0,"delta":"Think."}`)
	summary := ev(respSummaryDelta, `{"type":"response.reasoning_summary_text.delta","item_id":"rs","output_index":0,"summary_index":0,"delta":"Sum."}`)
	itemTool := ev(respItemAdded, `{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc","call_id":"c","name":"book","arguments":""}}`)
	itemMsg := ev(respItemAdded, `{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"m","role":"assistant","content":[]}}`)
	args := ev(respArgumentsDelta, `{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":1,"delta":"{\"day\":"}`)
	empty := ev(respTextDelta, `{"type":"response.output_text.delta","item_id":"m","delta":""}`)
	text := ev(respTextDelta, `{"type":"response.output_text.delta","sequence_number":5,"item_id":"m","output_index":1,"content_index":0,"delta":"Yes.","logprobs":[]}`)
	noType := "event: response.output_text.delta\ndata: {\"delta\":\" Sure.\"}\n\n" // the type only in the event field
	completed := ev(respCompleted, `{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":2,"input_tokens_details":{"cached_tokens":4}}},"timings":{"prompt_n":5,"cache_n":4}}`)
	incomplete := ev(respIncomplete, `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`)
	cases := []struct {
		name                                           string
		parts                                          []string
		event, progress, reasoning, tool, output, ttft int
		text, reasoningText, finish                    string
	}{
		{"llama-server with progress", []string{created, progress, itemMsg, empty, text, noType, completed}, 0, 1, -1, -1, 4, 4, "Yes. Sure.", "", "completed"},
		{"reasoning first", []string{created, reasoning, summary, itemMsg, text, incomplete}, 0, -1, 1, -1, 1, 4, "Yes.", "Think.Sum.", "max_output_tokens"},
		{"a function call first", []string{created, itemTool, args, itemMsg, text, completed}, 0, -1, -1, 1, 1, 4, "Yes.", "", "completed"},
		{"only arguments", []string{created, args, completed}, 0, -1, -1, 1, 1, -1, "", "", "completed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pieces := make([][]byte, len(c.parts))
			for i, p := range c.parts {
				pieces[i] = []byte(p)
			}
			res, stopped, err := feed(APIResponses, pieces...)
			if err != nil || !stopped || !res.Info.Done {
				t.Fatalf("err %v, stopped %v, done %v", err, stopped, res.Info.Done)
			}
			part := func(p *float64) int {
				if p == nil {
					return -1
				}
				return int(*p) - 1
			}
			info := res.Info
			ttft := -1
			if info.HasTTFT {
				ttft = int(info.TTFTMs) - 1
			}
			got := []int{part(info.FirstEventMs), part(info.FirstProgressMs), part(info.FirstReasoningMs), part(info.FirstToolCallMs), part(info.FirstOutputMs), ttft}
			want := []int{c.event, c.progress, c.reasoning, c.tool, c.output, c.ttft}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("firsts (event, progress, reasoning, tool, output, ttft) in parts %v, want %v", got, want)
			}
			var txt, rtxt strings.Builder
			for _, ch := range res.Chunks {
				txt.WriteString(ch.Text)
			}
			for _, r := range info.Reasoning {
				rtxt.WriteString(r.Text)
			}
			if txt.String() != c.text || rtxt.String() != c.reasoningText || info.FinishReason != c.finish {
				t.Errorf("text %q reasoning %q finish %q, want %q %q %q", txt.String(), rtxt.String(), info.FinishReason, c.text, c.reasoningText, c.finish)
			}
		})
	}
}

// TestResponsesFailures: the ways a Responses stream ends badly are
// errors of their kind, never a clean end.
func TestResponsesFailures(t *testing.T) {
	cases := []struct {
		name, body string
		kind       Kind
		says       string
	}{
		{"failed", "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"out of memory\"}}}\n\n", KindServer, "out of memory"},
		{"error event", "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\",\"param\":null}\n\n", KindServer, "slow down"},
		{"llama-server error member", "data: {\"error\":{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}}\n\n", KindServer, "boom"},
		{"no type", "data: {\"delta\":\"x\"}\n\n", KindBadData, "no type"},
		{"not json", "event: response.output_text.delta\ndata: {x\n\n", KindBadData, "not valid JSON"},
		{"delta of the wrong type", "data: {\"type\":\"response.output_text.delta\",\"delta\":5}\n\n", KindBadData, "delta"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := feed(APIResponses, []byte(c.body))
			var se *Error
			if !asError(err, &se) || se.Kind != c.kind || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %v, want kind %v saying %q", err, c.kind, c.says)
			}
			if res.Info.Done {
				t.Fatal("a failed stream is marked done")
			}
		})
	}
}

// TestCompletionsChunks: choices[0].text is the content; prompt_progress
// chunks (empty text) are progress, not output.
func TestCompletionsChunks(t *testing.T) {
	d := func(s string) string { return "data: " + s + "\n\n" }
	body := d(`{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion","prompt_progress":{"total":5,"cache":0,"processed":5,"time_ms":1}}`) +
		d(`{"choices":[{"text":"Hi","index":0,"logprobs":null,"finish_reason":null}],"object":"text_completion"}`) +
		d(`{"choices":[{"text":" there","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":4}}}`) +
		"data: [DONE]\n\n"
	parts := strings.SplitAfter(body, "\n\n")
	pieces := make([][]byte, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			pieces = append(pieces, []byte(p))
		}
	}
	res, stopped, err := feed(APICompletions, pieces...)
	if err != nil || !stopped || !res.Info.Done {
		t.Fatalf("err %v stopped %v done %v", err, stopped, res.Info.Done)
	}
	if len(res.Chunks) != 2 || res.Chunks[0].Text != "Hi" || res.Chunks[1].Text != " there" {
		t.Fatalf("chunks %+v", res.Chunks)
	}
	if *res.Info.FirstProgressMs != 1 || res.Info.TTFTMs != 2 || *res.Info.FirstOutputMs != 2 || res.Info.FinishReason != "length" || res.Info.Usage == nil {
		t.Fatalf("info %+v", res.Info)
	}
}

// A chat reader given a completions stream finds no content: the API
// must be said, it is not guessed.
func TestAPIIsNotGuessed(t *testing.T) {
	capture, err := os.ReadFile("testdata/llama_completions_capture.sse")
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := feed(APIChat, capture)
	if err != nil || res.Info.HasTTFT {
		t.Fatalf("chat reading of a completions stream: err %v, ttft %v", err, res.Info.HasTTFT)
	}
}

var completionEquivalence = []string{
	`{"choices":[{"text":"he","index":0,"logprobs":null,"finish_reason":null}],"created":1,"model":"m","system_fingerprint":"b11669-Debian","object":"text_completion","id":"c"}`,
	`{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":5},"timings":{"prompt_n":1}}`,
	`{"choices":[{"text":null}]}`,
	`{"choices":[{"Text":"folded"}]}`,
	`{"choices":[{"text":"a","text":"b"}]}`,
	`{"choices":[{"text":5}]}`,
	`{"choices":[{"delta":{"content":"chat"}}]}`,
	`{"choices":[{"text":"\u00e9"}]}`,
	`{"choices":[{"text":"a"},{"text":"b","finish_reason":"stop"}]}`,
	`{"choices":[{"text":"a"}],"prompt_progress":{"total":1}}`,
	`{"choices":[{"text":"a"}]`,
	`{"error":{"message":"boom"}}`,
	`{"choices":[]}`,
}

func TestDecodeCompletionMatchesEncodingJSON(t *testing.T) {
	for _, in := range completionEquivalence {
		got, gotErr := decodeCompletion([]byte(in))
		want, wantErr := slowCompletion([]byte(in))
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v (%v), encoding/json gives %+v (%v)", in, got, gotErr, want, wantErr)
		}
	}
	if _, ok := fastCompletion([]byte(completionEquivalence[0])); !ok {
		t.Fatal("the fast path refused llama-server's completions chunk")
	}
}

var responseEquivalence = []string{
	`{"type":"response.output_text.delta","item_id":"msg_1","delta":"\""}`,
	`{"type":"response.output_text.delta","sequence_number":4,"item_id":"m","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`,
	`{"type":"response.reasoning_text.delta","delta":"x"}`,
	`{"type":"response.output_text.delta","delta":null}`,
	`{"type":"response.output_text.delta"}`,
	`{"type":"response.output_text.delta","delta":"a","delta":"b"}`,
	`{"Type":"response.output_text.delta","delta":"a"}`,
	`{"type":"response.output_text.delta","delta":"\u00e9"}`,
	`{"type":"response.created","response":{"id":"r"}}`,
	`{"type":"response.output_text.delta","delta":"a","timings":{"prompt_n":1}}`,
	`{"type":"response.output_text.delta","delta":"a"} x`,
}

func TestDecodeResponseMatchesEncodingJSON(t *testing.T) {
	for _, in := range responseEquivalence {
		got, gotErr := decodeResponseEvent([]byte(in), "")
		want, wantErr := slowResponseEvent([]byte(in), "")
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v (%v), encoding/json gives %+v (%v)", in, got, gotErr, want, wantErr)
		}
	}
	for _, in := range responseEquivalence[:3] {
		if _, ok := fastResponseDelta([]byte(in)); !ok {
			t.Fatalf("the fast path refused %s", in)
		}
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, in := range responseEquivalence {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, gotErr := decodeResponseEvent([]byte(in), "")
		want, wantErr := slowResponseEvent([]byte(in), "")
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v (%v), encoding/json gives %+v (%v)", in, got, gotErr, want, wantErr)
		}
	})
}

func BenchmarkDecodeCompletionText(b *testing.B) {
	benchDecode(b, decodeCompletion, completionEquivalence[0])
}

func BenchmarkDecodeResponseTextDelta(b *testing.B) {
	data := []byte(responseEquivalence[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeResponseEvent(data, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// TestCapturesThroughDo sends each API's capture through Do in pieces of
// random sizes, on the raw-socket client and on net/http: the path is the
// API's, and text, end and firsts' order do not depend on the wire or the
// cuts. The capture without its last event is a truncated stream that
// names the API's end marker.
func TestCapturesThroughDo(t *testing.T) {
	var mu sync.Mutex
	var body []byte
	var seed int64
	var paths []string
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		data, rng := body, rand.New(rand.NewSource(seed))
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		f := sseHeaders(w)
		for len(data) > 0 {
			n := min(len(data), 1+rng.Intn(300))
			w.Write(data[:n])
			f.Flush()
			data = data[n:]
		}
	}))
	for _, c := range captures {
		capture, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		want := expectOf(c.api, readCapture(t, capture))
		for s := int64(1); s <= 4; s++ {
			for _, w := range []Wire{WireAuto, WireNetHTTP} {
				mu.Lock()
				body, seed, paths = capture, s, nil
				mu.Unlock()
				res, err := Do(context.Background(), Request{URL: srv.URL, API: c.api, Body: chatBody(), Wire: w})
				if err != nil {
					t.Fatalf("%s seed %d %v: %v", c.api, s, w, err)
				}
				var text strings.Builder
				for _, ch := range res.Chunks {
					text.WriteString(ch.Text)
				}
				info := res.Info
				switch {
				case paths[0] != c.api.Path():
					t.Fatalf("%s: sent to %s", c.api, paths[0])
				case text.String() != want.text || !info.Done || info.API != c.api:
					t.Fatalf("%s seed %d %v: text %q done %v api %v", c.api, s, w, text.String(), info.Done, info.API)
				case *info.FirstEventMs > info.TTFTMs || info.TTFTMs > res.TotalMs || *info.FirstOutputMs != info.TTFTMs:
					t.Fatalf("%s: first event %v, ttft %v, total %v", c.api, *info.FirstEventMs, info.TTFTMs, res.TotalMs)
				case want.progress >= 0 && (info.FirstProgressMs == nil || *info.FirstProgressMs > info.TTFTMs):
					t.Fatalf("%s: progress %v", c.api, info.FirstProgressMs)
				}
			}
		}
		// Cut before the last event: no end marker.
		last := bytes.LastIndex(bytes.TrimRight(capture, "\n"), []byte("\n\n"))
		mu.Lock()
		body, seed = capture[:last+2], 1
		mu.Unlock()
		_, err = Do(context.Background(), Request{URL: srv.URL, API: c.api, Body: chatBody()})
		var se *Error
		if !asError(err, &se) || se.Kind != KindTruncated || !strings.Contains(err.Error(), c.api.endMarker()) {
			t.Fatalf("%s cut before its end: %v", c.api, err)
		}
	}
}

func FuzzDecodeCompletion(f *testing.F) {
	for _, in := range completionEquivalence {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, gotErr := decodeCompletion([]byte(in))
		want, wantErr := slowCompletion([]byte(in))
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v (%v), encoding/json gives %+v (%v)", in, got, gotErr, want, wantErr)
		}
	})
}
