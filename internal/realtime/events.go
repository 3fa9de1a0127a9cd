package realtime

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/coder/websocket"

	"ttftlab/internal/wsstamp"
)

// event holds the fields of the server events that are read, in either
// dialect.
type event struct {
	Type         string          `json:"type"`
	ItemID       string          `json:"item_id"`
	ResponseID   string          `json:"response_id"`
	AudioStartMs *float64        `json:"audio_start_ms"`
	AudioEndMs   *float64        `json:"audio_end_ms"`
	Delta        string          `json:"delta"`
	Session      json.RawMessage `json:"session"`
	Response     *struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"response"`
	Error json.RawMessage `json:"error"`
	// audio is the bytes of an audio delta's PCM.
	audio int
}

// parse reads one server event (an audio delta's base64 decoded to count
// its bytes); one that is none is quoted in the error, scrubbed of the
// request's secrets before it is shortened (a secret cut by the
// shortening would escape the scrubbing after).
func (s *session) parse(data []byte) (event, *Error) {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil || ev.Type == "" {
		return ev, s.badData("a message that is no event", data, err)
	}
	switch ev.Type {
	case "response.output_audio.delta", "response.audio.delta":
		buf := make([]byte, base64.StdEncoding.DecodedLen(len(ev.Delta)))
		n, err := base64.StdEncoding.Decode(buf, []byte(ev.Delta))
		if err != nil || n%2 != 0 {
			return ev, s.badData("an audio delta that is no base64 PCM16", data, err)
		}
		ev.audio = n
	}
	return ev, nil
}

// badData is a message that cannot be read, quoted scrubbed and short.
func (s *session) badData(what string, data []byte, err error) *Error {
	shown := s.scrub.Bytes(data)
	if len(shown) > 120 {
		shown = shown[:120]
	}
	return &Error{Kind: KindBadData, Err: err, Msg: fmt.Sprintf("realtime: the server sent %s: %q", what, shown)}
}

func binaryError() *Error {
	return &Error{Kind: KindBadData, Msg: "realtime: the server sent a binary message where JSON events are spoken"}
}

// errorEvent is an error event as realtime_error (wsstamp.ErrorEvent
// reads its message).
func errorEvent(ev event) *Error {
	msg, _ := wsstamp.ErrorEvent(ev.Error)
	return &Error{Kind: KindServer, Msg: "realtime server error: " + msg}
}

// errorCode is an error event's error.code ("" for none).
func errorCode(ev event) string {
	_, code := wsstamp.ErrorEvent(ev.Error)
	return code
}

// readError is a failed read: the connection closed mid-session, or the
// server sent a message past the read limit.
func readError(err error) *Error {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return &Error{Kind: KindBadData, Err: err, Msg: fmt.Sprintf("realtime: the server sent a message over %d bytes, more than any event holds", readLimit)}
	}
	return &Error{Kind: KindDropped, Msg: "realtime: the WebSocket closed mid-session" + wsstamp.HowClosed(err), Err: err}
}
