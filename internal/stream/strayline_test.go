package stream

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// A named event whose data is no chat chunk (a proxy's keep-alive, a
// server's own notice) is passed over and counted; the answer around it
// is read whole. Fails before this change: the stream stopped at the
// ping with "has no \"choices\"" or "is not valid JSON".
func TestNamedEventPassedOver(t *testing.T) { eachWire(t, testNamedEventPassedOver) }

func testNamedEventPassedOver(t *testing.T, w Wire) {
	base := scriptURL(roleEvent(), "event: ping\ndata: {\"type\":\"ping\"}\n\n", contentEvent("Hello"),
		"event: notice\ndata: not json at all\n\n", contentEvent(" there."), finalEvent("stop"), doneEvent)(t)
	res, err := Do(context.Background(), Request{URL: base, Body: chatBody(), Wire: w})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(res); got != "Hello there." || !res.Info.Done {
		t.Errorf("text %q, done %v; want the whole answer", got, res.Info.Done)
	}
	if res.Info.IgnoredEvents != 2 || res.Info.FirstIgnored != "ping" {
		t.Errorf("IgnoredEvents %d, FirstIgnored %q; want 2, ping", res.Info.IgnoredEvents, res.Info.FirstIgnored)
	}
}

// An unnamed data event that is no chunk, or one named "message" (the SSE
// default), still fails the stream, and a named event carrying an error
// object still reports the server's error.
func TestUnnamedBadEventStillFails(t *testing.T) {
	for _, c := range []struct {
		name, event string
		kind        Kind
		want        string
	}{
		{"unnamed", "data: {\"type\":\"ping\"}\n\n", KindBadData, `no "choices"`},
		{"message", "event: message\ndata: nope\n\n", KindBadData, "is not valid JSON"},
		{"named error", "event: error\ndata: {\"error\":{\"message\":\"slot lost\",\"type\":\"server_error\"}}\n\n", KindServer, "slot lost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := feed(APIChat, []byte(roleEvent()), []byte(c.event), []byte(contentEvent("x")))
			var se *Error
			if !errors.As(err, &se) || se.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want kind %s naming %q", err, c.kind, c.want)
			}
		})
	}
}

// The Responses API's named events are its chunks: its capture reads as
// before, nothing passed over.
func TestResponsesNamedEventsKeepWorking(t *testing.T) {
	capture, err := os.ReadFile("testdata/llama_responses_capture.sse")
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := feed(APIResponses, capture)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Info.Done || !res.Info.HasTTFT || len(res.Chunks) == 0 || res.Info.IgnoredEvents != 0 {
		t.Errorf("done %v, ttft %v, %d chunks, %d ignored; want the whole answer read",
			res.Info.Done, res.Info.HasTTFT, len(res.Chunks), res.Info.IgnoredEvents)
	}
}

// A server that fails after its 200 head may write its error as a bare
// JSON line, or as an "error:" field (very old llama.cpp builds), which
// the SSE rules ignore. The stream ends there with the server's own text.
// Fails before this change: the bare line was ignored and the stream was
// reported only as ended without data: [DONE].
func TestBareErrorLine(t *testing.T) { eachWire(t, testBareErrorLine) }

func testBareErrorLine(t *testing.T, w Wire) {
	for _, c := range []struct{ name, line string }{
		{"bare JSON", `{"error":{"code":500,"message":"out of KV cache slots","type":"server_error"}}` + "\n\n"},
		{"error field", `error: {"code":500,"message":"out of KV cache slots","type":"server_error"}` + "\n\n" + doneEvent},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := scriptURL(roleEvent(), contentEvent("Hi"), c.line)(t)
			res, err := Do(context.Background(), Request{URL: base, Body: chatBody(), Wire: w})
			var se *Error
			if !errors.As(err, &se) || se.Kind != KindServer {
				t.Fatalf("err %v, want a server error", err)
			}
			for _, want := range []string{"out of KV cache slots", "server_error", "1 content chunks"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			if se.Message != "out of KV cache slots" || se.Type != "server_error" || text(res) != "Hi" {
				t.Errorf("Message %q Type %q text %q", se.Message, se.Type, text(res))
			}
		})
	}
}

// A stray line that is not an error object is ignored, as the SSE rules
// say.
func TestStrayLineNotAnError(t *testing.T) {
	res, _, err := feed(APIChat, []byte(roleEvent()), []byte("{\"note\":1}\nfoo: bar\n\n"), []byte(contentEvent("ok")), []byte(doneEvent))
	if err != nil || text(res) != "ok" || !res.Info.Done {
		t.Errorf("err %v, text %q, done %v", err, text(res), res.Info.Done)
	}
}

// text joins the content chunks.
func text(res *Result) string {
	var b strings.Builder
	for _, c := range res.Chunks {
		b.WriteString(c.Text)
	}
	return b.String()
}

// A 503 is llama-server loading its model only when it says so; any other
// 503 (a busy server, a proxy with no room) gets the overloaded hint.
// Fails before this change: every 503 was blamed on model loading.
func Test503LoadingOrOverloaded(t *testing.T) {
	for _, c := range []struct {
		name, body, want, not string
	}{
		{"loading", `{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`, "still loading its model", "overloaded"},
		{"loading, old build", `{"status":"loading model"}`, "still loading its model", "overloaded"},
		{"overloaded", `{"error":{"message":"the server is at capacity","type":"unavailable_error","code":503}}`, "busy/overloaded", "loading"},
		{"proxy", "Service Unavailable", "busy/overloaded", "loading"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := answer(503, "application/json", c.body)(t)
			_, err := Do(context.Background(), Request{URL: base, Body: chatBody()})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(strings.ToLower(hintOf(err.Error())), c.not) {
				t.Errorf("err %v, want %q and not %q in the hint", err, c.want, c.not)
			}
		})
	}
}

// hintOf is what follows the last "; " of a message: its hint.
func hintOf(msg string) string {
	if i := strings.LastIndex(msg, "; "); i >= 0 {
		return msg[i:]
	}
	return msg
}
