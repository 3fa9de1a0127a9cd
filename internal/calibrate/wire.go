package calibrate

import (
	"fmt"
	"strconv"
)

// Chunks are shaped like llama-server's (build b11669): the role chunk,
// one chunk per token, a final chunk with finish_reason and timings, then
// [DONE]. Clients parse exactly what they parse in real use.
const (
	chunkTail = `"created":1795999894,"id":"chatcmpl-calibrate","model":"calibrate.gguf","system_fingerprint":"b0-calibrate","object":"chat.completion.chunk"`
	roleEvent = `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],` + chunkTail + "}\n\n"
	doneEvent = "data: [DONE]\n\n"

	responseHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n" +
		"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
)

// maxBurst bounds the chunks of one write (about 230 KB). Up to about 280
// chunks (64 KB, the loopback MTU) travel in one TCP segment.
const maxBurst = 1000

// words are the content pieces, cycled; the mix of lengths is a story
// model's.
var words = []string{" Once", " upon", " a", " time", ",", " there", " was", " a", " little",
	" girl", " named", " Lily", ".", " She", " loved", " to", " play", " outside", "."}

// contentEvents holds the event for each word, built once, so a send
// allocates nothing.
var contentEvents = func() [][]byte {
	evs := make([][]byte, len(words))
	for i, w := range words {
		evs[i] = []byte(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":` +
			strconv.Quote(w) + `}}],` + chunkTail + "}\n\n")
	}
	return evs
}()

// contentEvent is the event of content chunk i (1-based).
func contentEvent(i int) []byte { return contentEvents[(i-1)%len(contentEvents)] }

// contentText is the text of content chunk i (1-based).
func contentText(i int) string { return words[(i-1)%len(words)] }

// finalEvent ends the answer like llama-server: finish_reason "length"
// and timings.
func finalEvent(chunks int, sentMs float64) []byte {
	return fmt.Appendf(nil, `data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],`+chunkTail+
		`,"timings":{"cache_n":0,"prompt_n":1,"prompt_ms":0,"predicted_n":%d,"predicted_ms":%.3f}}`+"\n\n", chunks, sentMs)
}

// frame wraps events in one HTTP/1.1 chunk into buf (reused, so a send
// does not allocate).
func frame(buf []byte, events ...[]byte) []byte {
	n := 0
	for _, e := range events {
		n += len(e)
	}
	buf = strconv.AppendInt(buf[:0], int64(n), 16)
	buf = append(buf, '\r', '\n')
	for _, e := range events {
		buf = append(buf, e...)
	}
	return append(buf, '\r', '\n')
}

// frameContent frames content chunks first..last (1-based, inclusive) as
// one HTTP chunk into buf.
func frameContent(buf []byte, first, last int) []byte {
	n := 0
	for i := first; i <= last; i++ {
		n += len(contentEvent(i))
	}
	buf = strconv.AppendInt(buf[:0], int64(n), 16)
	buf = append(buf, '\r', '\n')
	for i := first; i <= last; i++ {
		buf = append(buf, contentEvent(i)...)
	}
	return append(buf, '\r', '\n')
}

// endOfBody is the last HTTP chunk.
var endOfBody = []byte("0\r\n\r\n")
