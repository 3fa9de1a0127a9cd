// Package stream sends one streaming chat-completion request over a fresh
// connection and records when every line of the answer came off the socket.
//
// Timing follows net/http/httptrace's spirit: t0 is read immediately before
// the request is written, and each line is stamped as soon as the read that
// completed it returns, before JSON decoding, callbacks or disk writes.
package stream

import (
	"io"
	"time"
)

// Request describes one streamed request.
type Request struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Path is appended to URL; default /v1/chat/completions (DefaultPath).
	Path string
	// Body is the complete JSON request body, sent as is (see EncodeBody).
	Body []byte
	// Header holds extra request headers (e.g. Authorization).
	Header map[string]string
	// RawOut, when set, receives every byte of the response body exactly as
	// read, also when the stream fails.
	RawOut io.Writer
	// CutAfter closes the connection once that much time has passed since t0
	// (0: never).
	CutAfter time.Duration
	// IdleTimeout ends the request with an error when nothing arrives for
	// that long, response headers included (0: DefaultIdleTimeout, 30 s;
	// negative: none).
	IdleTimeout time.Duration
	// Timeout bounds the whole request, from the call of Do (0: none).
	Timeout time.Duration
	// OnChunk is called on the caller's goroutine for every content chunk, in
	// order. Returning false closes the connection at once (a cut; no later
	// chunk is delivered); an error closes it too and Do returns an *Error
	// of KindCallback whose message is the callback's, unchanged, and which
	// unwraps to it.
	OnChunk func(c Chunk) (keepGoing bool, err error)
	// DiscardChunks keeps Result.Chunks empty (OnChunk still sees every
	// chunk): memory stays flat on very long streams.
	DiscardChunks bool
}

// Chunk is one content chunk: a data event whose choices[0].delta.content is
// a non-empty string.
type Chunk struct {
	// TMs is the arrival time in milliseconds since t0: when the socket
	// read that completed the chunk's (last) data line returned.
	TMs float64
	// Text is the delta content.
	Text string
	// Index counts content chunks from 1.
	Index int
}

// Info describes how the request went.
type Info struct {
	// TTFTMs is the arrival time of the first content chunk; HasTTFT is false
	// when none arrived.
	TTFTMs  float64
	HasTTFT bool
	// T0 is the instant of t0 (with Go's monotonic reading), so callers can
	// place the stream's times on their own clock; zero when the request was
	// never written.
	T0 time.Time
	// HeadersMs is when the HTTP round trip returned the response headers.
	HeadersMs float64
	// Done is true when data: [DONE] was seen.
	Done bool
	// Cut is true when the client closed the connection (CutAfter, OnChunk
	// returning false, or cancellation); ClosedAtMs says when, read right
	// before the close. If the close came before the request was written,
	// it counts from the call of Do instead of t0.
	Cut        bool
	ClosedAtMs float64
	// FinishReason is the last non-null finish_reason seen.
	FinishReason string
	// Status is the HTTP status code.
	Status int
	// Lines counts the complete non-blank lines received, comments
	// included.
	Lines int
	// Usage is the usage object when the server sent one.
	Usage map[string]any
}

// Result is what a streamed request produced. Do returns a Result also with
// an error, holding everything that arrived before the failure.
type Result struct {
	Chunks []Chunk
	// TotalMs is when the stream ended: the stamp of data: [DONE], of the
	// read that hit EOF or failed, of the event that ended it with an error,
	// or the close time of a cut or timeout.
	TotalMs float64
	// Timings is the server's timings object from the last chunk that had
	// one, nil when none came.
	Timings map[string]any
	Info    Info
}
