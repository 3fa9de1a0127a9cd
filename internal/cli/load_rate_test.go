package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// slotServer is llama-server as `ttftlab load` sees it with k slots: a
// request waits, sending nothing, until a slot is free, then holds it for
// hold (its first token after first), so it serves k/hold calls a second
// and an open loop faster than that queues without end.
type slotServer struct {
	k           int
	first, hold time.Duration
	slots       chan struct{}
}

func (s *slotServer) start(t *testing.T) string {
	t.Helper()
	s.slots = make(chan struct{}, s.k)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":8,"model_path":"/models/slot.gguf","build_info":"b1-slot"}`)
		case "/slots":
			io.WriteString(w, `[]`)
		case "/v1/chat/completions":
			io.ReadAll(r.Body)
			select {
			case s.slots <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			began := time.Now()
			defer func() { <-s.slots }()
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := func(text string) string {
				q, _ := json.Marshal(text)
				return `data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n"
			}
			time.Sleep(s.first)
			io.WriteString(w, chunk("Yes, we open on Saturday."))
			w.(http.Flusher).Flush()
			time.Sleep(s.hold - time.Since(began))
			io.WriteString(w, chunk(" Bye.")+`data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}]}`+"\n\n"+"data: [DONE]\n\n")
			w.(http.Flusher).Flush()
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
