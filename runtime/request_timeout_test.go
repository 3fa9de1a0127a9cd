package runtime

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// commentOnlyServer answers 200 text/event-stream, one content chunk, then
// only `: keep-alive` comments every 50 ms until the client goes.
func commentOnlyServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, `data: {"choices":[{"delta":{"content":"Hi"},"index":0,"finish_reason":null}]}`+"\n\n")
		fl.Flush()
		for {
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// TestConfigRequestTimeoutBoundsEveryRequest: Config.RequestTimeout is the
// whole-request bound of stream() and stream_many() requests that set no
// timeout_ms; comments do not extend it, the chunks that arrived stay, and
// a request's own timeout_ms wins.
func TestConfigRequestTimeoutBoundsEveryRequest(t *testing.T) {
	vm, out := testVM(t, Config{Server: commentOnlyServer(t), RequestTimeout: 400 * time.Millisecond})
	err := vm.RunString(`
local chunks, _, _, info = stream("hi", { errors = "return" })
print("stream", #chunks, chunks[1].text, tostring(info.error):find("400ms timeout", 1, true) ~= nil)
local _, _, _, own = stream("hi", { errors = "return", timeout_ms = 200 })
print("own", tostring(own.error):find("200ms timeout", 1, true) ~= nil)
local results = stream_many({ { "a" }, { "b", { timeout_ms = 200 } } }, { concurrency = 2 })
for _, r in ipairs(results) do
  print("many", r.index, r.error_kind, #r.chunks, tostring(r.error):match("(%d+ms) timeout"))
end
`, "timeout.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := "stream\t1\tHi\ttrue\nown\ttrue\nmany\t1\ttimeout\t1\t400ms\nmany\t2\ttimeout\t1\t200ms\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out, want)
	}
}
