// Package stream sends one streaming chat-completion request over a fresh
// connection and records when every line of the answer came off the socket.
//
// t0 is read immediately before the request's first byte is written, and
// each line is stamped with the read that completed it, before JSON
// decoding, callbacks or disk writes. On Linux a request has a raw socket
// of its own (internal/wire) that one locked OS thread of the process (the
// poller) reads as soon as the kernel wakes it, with the kernel's own
// receive timestamp when it gives one (see Wire and StampSource); for
// https:// crypto/tls decrypts those reads, each record keeping the stamp
// of the read that completed it. Elsewhere net/http and a reader goroutine
// do the reading.
// Do is safe to call from many goroutines at once: all raw-path streams
// share the poller.
package stream

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"time"

	"ttftlab/internal/audio"
)

// Request describes one streamed request.
type Request struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080 or
	// https://api.example.com/v1.
	URL string
	// Path is joined to URL (endpoint.Join: a base ending in /v1 is not
	// doubled); default the API's path (/v1/chat/completions for APIChat,
	// DefaultPath).
	Path string
	// API is the streaming API the body speaks and the answer follows:
	// chat (the zero value), completions or responses.
	API API
	// Body is the complete JSON request body, sent as is (see EncodeBody).
	Body []byte
	// Header holds extra request headers (e.g. Authorization). The values
	// of the secret ones (endpoint.Secret, the API key's among them) are
	// scrubbed from every server text the request returns, should the
	// server echo them: the error, the chunks' text and RawOut
	// (endpoint.ScrubberFor).
	Header map[string]string
	// TLS configures https (a private CA, or no verification); nil takes
	// Go's defaults, which honour SSL_CERT_FILE and SSL_CERT_DIR.
	TLS *tls.Config
	// Proxy chooses the proxy for the request's URL (nil result: none),
	// as http.Transport.Proxy does; nil takes the environment's
	// HTTP_PROXY, HTTPS_PROXY and NO_PROXY by net/http's rules
	// (http.ProxyFromEnvironment), which never proxy loopback. http://
	// goes to an HTTP proxy in absolute form, https:// through a CONNECT
	// tunnel; the stamps are of the reads from the proxy.
	Proxy func(*url.URL) (*url.URL, error)
	// RawOut, when set, receives every byte of the response body exactly as
	// read, also when the stream fails; a secret of Header in it is
	// replaced by endpoint.Redacted (bytes that may be the start of one
	// wait for the next read, or the end of Do).
	RawOut io.Writer
	// CutAfter closes the connection once that much time has passed since t0
	// (0: never).
	CutAfter time.Duration
	// IdleTimeout ends the request with an error when nothing arrives for
	// that long; before the response head is whole it bounds the head as
	// a whole, counted from the request sent, not from each of its bytes
	// (0: DefaultIdleTimeout, 30 s; negative: none).
	IdleTimeout time.Duration
	// Timeout bounds the whole request, from the call of Do (0: none).
	Timeout time.Duration
	// OnChunk is called on the caller's goroutine for every content chunk, in
	// order. Returning false closes the connection at once (a cut; no later
	// chunk is delivered); an error closes it too and Do returns an *Error
	// of KindCallback whose message is the callback's, unchanged, and which
	// unwraps to it.
	OnChunk func(c Chunk) (keepGoing bool, err error)
	// Sent, when set, is called once, on the goroutine that writes the
	// request, right after its first write returned (at t0). It must not
	// block: the response may already be arriving.
	Sent func()
	// DiscardChunks keeps Result.Chunks empty (OnChunk still sees every
	// chunk): memory stays flat on very long streams.
	DiscardChunks bool
	// HandOff bounds how long data that has arrived may wait before the
	// caller's goroutine is woken to parse it and run OnChunk, once that
	// goroutine has been woken within the last HandOff (0:
	// DefaultHandOff, 500 µs, with OnChunk, DefaultHandOffNoCallback,
	// 2 ms, without; negative: wake it for every read). Stamps never
	// wait: they are taken when the bytes are read. A stream slower than
	// one read per HandOff is handed every read at once; a faster one
	// costs its caller one wake-up per HandOff instead of one per read.
	// The end of the stream is handed over at once. The poller (WireEpoll)
	// honours it; the other wires wake the caller for every read.
	HandOff time.Duration
	// Wire chooses how the answer is read; the zero value takes the most
	// exact way there is.
	Wire Wire
	// NoKernelStamps turns the kernel's receive timestamps off, so every
	// read keeps the time its reader took (to measure what they add).
	NoKernelStamps bool
	// KeepReads fills Result.Reads with every read's stamps.
	KeepReads bool
	// Speech says how to read an APISpeech answer; nil reads WAV.
	Speech *Speech
}

// Speech is how an APISpeech answer's audio is read.
type Speech struct {
	// PCM is the format of a raw PCM answer; nil for WAV, whose header
	// says its format.
	PCM *audio.Format
	// Threshold is the share of full scale above which a sample is
	// voiced (0: audio.DefaultThreshold).
	Threshold float64
	// OnAudio, when set, is called on the caller's goroutine after every
	// read that brought audio bytes, with that read's stamp and what the
	// answer held so far. Returning false closes the connection at once
	// (a cut, as OnChunk's).
	OnAudio func(tMs float64, so audio.Result) (keepGoing bool)
}

// Read is one socket read that brought data, as the reader stamped it.
type Read struct {
	// TMs is the arrival time in milliseconds since t0 that the chunks the
	// read completed carry.
	TMs float64
	// ReadMs is when the read returned (ReadMs >= TMs): the difference is
	// how long the bytes waited in the socket for the reader.
	ReadMs float64
	// Source is how TMs was taken.
	Source StampSource
	// Bytes is what the read returned, HTTP framing included.
	Bytes int
}

// Chunk is one content chunk: a data event whose choices[0].delta.content
// (completions: choices[0].text; responses: the delta of
// response.output_text.delta) is a non-empty string.
type Chunk struct {
	// TMs is the arrival time in milliseconds since t0 of the read that
	// completed the chunk's (last) data line: the kernel's receive time of
	// that read's last segment when the read carried one, else when the
	// read returned (Info.StampSource says which; Result.Reads has each
	// read's).
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
	// HeadersMs is when the response headers had arrived: the stamp of the
	// read that completed them (net/http: when its round trip returned
	// them).
	HeadersMs float64
	// Done is true when the stream's end was seen: data: [DONE] (chat,
	// completions), response.completed or response.incomplete (responses).
	Done bool
	// Cut is true when the client closed the connection (CutAfter, OnChunk
	// returning false, or cancellation); ClosedAtMs says when, read right
	// before the close. If the close came before the request was written,
	// it counts from the call of Do instead of t0.
	Cut        bool
	ClosedAtMs float64
	// FinishReason is the last non-null finish_reason seen; for the
	// Responses API the response's end: "completed", the reason of
	// response.incomplete (e.g. "max_output_tokens"), or "failed".
	FinishReason string
	// Status is the HTTP status code.
	Status int
	// SentMs is when the request's last byte was written: the return of
	// the write that finished its body (0 when it was not written
	// whole).
	SentMs float64
	// API is the streaming API the answer was read as (Request.API).
	API API
	// Lines counts the complete non-blank lines received, comments
	// included.
	Lines int
	// IgnoredEvents counts the named events ("event: NAME") of a chat or
	// completions stream whose data was no chunk of the API: passed over,
	// not the answer; FirstIgnored is the name of the first.
	IgnoredEvents int
	FirstIgnored  string
	// Usage is the usage object when the server sent one.
	Usage map[string]any
	// StampSource is how the content chunks' stamps were taken: the one
	// source they share, SourceMixed when they differ, SourceNone without
	// content.
	StampSource StampSource
	// Reads counts the socket reads that brought data; KernelStamps those
	// of them that carried the kernel's receive timestamp.
	Reads, KernelStamps int
	// ReadPauses counts how often the reader stopped reading because
	// 8 MiB waited for the caller's goroutine (an unpaced server, or a
	// callback far slower than the server for very long). Stamps of the
	// reads after a pause measure that backlog, not the wire.
	ReadPauses int
	// Firsts are the other "first" moments, each the arrival of the first
	// data event of its kind (nil when none came): any event at all (the
	// role-only chunk included: what naive clients call TTFT), a
	// prompt_progress chunk, a non-empty reasoning delta, a tool-call
	// delta, and the earliest output of any kind (content, reasoning or a
	// tool call). TTFTMs stays the first non-empty content.
	FirstEventMs, FirstProgressMs, FirstReasoningMs, FirstToolCallMs, FirstOutputMs *float64
	// Reasoning holds the reasoning deltas, apart from the content.
	Reasoning []Chunk
}

// Result is what a streamed request produced. Do returns a Result also with
// an error, holding everything that arrived before the failure.
type Result struct {
	Chunks []Chunk
	// Reads holds every read that brought data when Request.KeepReads is
	// set; nil otherwise.
	Reads []Read
	// TotalMs is when the stream ended: the stamp of data: [DONE], of the
	// read that hit EOF or failed, of the event that ended it with an error,
	// or the close time of a cut or timeout.
	TotalMs float64
	// Timings is the server's timings object from the last chunk that had
	// one, nil when none came.
	Timings map[string]any
	Info    Info
	// Audio is what an APISpeech answer held (nil for the text APIs):
	// when its first sample and first voiced sample arrived, its format,
	// bytes and length.
	Audio *audio.Result
	// Transcript is what an APITranscription answer held (nil for the
	// other APIs, and without a 2xx answer).
	Transcript *Transcript
}

// Transcript is the transcript of an APITranscription answer. Its
// stamps are the Result's: the final transcript arrived at TotalMs when
// Info.Done (the read that completed the JSON answer, or the
// transcript.text.done event), the first partial at Info.TTFTMs (the
// first transcript.text.delta, a content chunk).
type Transcript struct {
	// Text is the JSON answer's "text", or the transcript.text.done
	// event's (the deltas joined when the stream ended with [DONE]
	// instead).
	Text string
	// Streamed says the answer was an event stream (stream=true).
	Streamed bool
	// Header is the answer's head, where a server reports what it did
	// (a queue time).
	Header http.Header
}
