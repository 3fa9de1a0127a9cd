package engineserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// EventWriteTimeout bounds one event's write to a client that stopped
// reading.
const EventWriteTimeout = 10 * time.Second

// Events writes the server events of one Realtime WebSocket session
// (OpenAI's Realtime shape): a write at a time, each event given the
// next event_id, so events go in the order they were sent. Safe for use
// by several goroutines.
type Events struct {
	c   *websocket.Conn
	ctx context.Context

	mu sync.Mutex
	n  int
}

// NewEvents writes events to c until ctx ends.
func NewEvents(ctx context.Context, c *websocket.Conn) *Events { return &Events{c: c, ctx: ctx} }

// Send writes one server event with its event_id ("event_N"). A write
// that fails (the client went away) is dropped: the session's read
// of the socket ends it.
func (e *Events) Send(ev map[string]any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	ev["event_id"] = fmt.Sprintf("event_%d", e.n)
	b, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(e.ctx, EventWriteTimeout)
	defer cancel()
	e.c.Write(ctx, websocket.MessageText, b)
}

// Fail sends an error event in OpenAI's shape ({"type":"error","error":
// {"type":"invalid_request_error","code":CODE,"message":...,"event_id":
// the client event's id}}); the session goes on.
func (e *Events) Fail(code, eventID, format string, args ...any) {
	er := map[string]any{"type": "invalid_request_error", "code": code, "message": fmt.Sprintf(format, args...)}
	if eventID != "" {
		er["event_id"] = eventID
	}
	e.Send(map[string]any{"type": "error", "error": er})
}
