package endpoint

import (
	"bytes"
	"io"
	"sort"
	"strings"
)

// Scrubber replaces the secrets a request sent (the API key, the values
// of secret headers) in text that came back from the server: a gateway,
// a proxy or a server that echoes the headers it received in an error
// message would otherwise put the key into every message, artifact and
// page that quotes it. The zero value and nil scrub nothing.
type Scrubber struct {
	secrets [][]byte // shortest first; none holds another
}

// minSecret is the shortest secret scrubbed on its own: shorter ones
// would blank ordinary text. A short key is still scrubbed where it
// follows its scheme ("Bearer k" is 8 bytes).
const minSecret = 4

// ScrubberFor is the scrubber of the secrets among headers: the value
// of every header whose name is secret (Secret), and of a value of the
// form "Scheme credential" (Authorization: Bearer KEY) the credential
// alone too. nil when there is none.
func ScrubberFor(header map[string]string) *Scrubber {
	var all []string
	for name, v := range header {
		if !Secret(name) {
			continue
		}
		v = strings.TrimSpace(v)
		all = append(all, v)
		if _, cred, ok := strings.Cut(v, " "); ok {
			all = append(all, strings.TrimSpace(cred))
		}
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) < len(all[j]) })
	s := &Scrubber{}
	for _, v := range all {
		if len(v) < minSecret || s.holds(v) {
			continue
		}
		s.secrets = append(s.secrets, []byte(v))
	}
	if len(s.secrets) == 0 {
		return nil
	}
	return s
}

// Scrubber of an endpoint: its key and its secret headers.
func (e *Endpoint) Scrubber() *Scrubber { return ScrubberFor(e.Headers()) }

// holds reports whether v contains a secret already kept (scrubbing
// that one scrubs v).
func (s *Scrubber) holds(v string) bool {
	for _, k := range s.secrets {
		if strings.Contains(v, string(k)) {
			return true
		}
	}
	return false
}

// String is s with every secret replaced by Redacted, and the start of
// a secret that an excerpt's shortening cut off (CutMark) too.
func (s *Scrubber) String(text string) string {
	if s == nil {
		return text
	}
	for _, k := range s.secrets {
		if strings.Contains(text, string(k)) {
			text = strings.ReplaceAll(text, string(k), Redacted)
		}
	}
	if strings.Contains(text, CutMark) {
		text = s.cutEnds(text)
	}
	return text
}

// CutMark ends a quoted excerpt of a server's text that was shortened
// for a message ("<html>…"... (N bytes)): a secret cut there leaves its
// start just before it, which no whole-secret search finds.
const CutMark = `"...`

// cutEnds replaces, before each CutMark, the longest end of the text
// that is the start of a secret (minSecret bytes or more) by Redacted.
func (s *Scrubber) cutEnds(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, CutMark)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		before := text[:i]
		if n := s.partial([]byte(before)); n >= minSecret {
			before = before[:len(before)-n] + Redacted
		}
		b.WriteString(before)
		b.WriteString(CutMark)
		text = text[i+len(CutMark):]
	}
}

// Bytes is b with every secret replaced by Redacted: b itself when it
// holds none, else a new slice.
func (s *Scrubber) Bytes(b []byte) []byte {
	if s == nil {
		return b
	}
	for _, k := range s.secrets {
		if bytes.Contains(b, k) {
			b = bytes.ReplaceAll(b, k, []byte(Redacted))
		}
	}
	return b
}

// partial is the length of the longest end of b that is the start of a
// secret, but not all of it: bytes that may yet become a secret with
// the next write.
func (s *Scrubber) partial(b []byte) int {
	best := 0
	for _, k := range s.secrets {
		n := min(len(k)-1, len(b))
		for ; n > best; n-- {
			if b[len(b)-n] == k[0] && bytes.HasPrefix(k, b[len(b)-n:]) {
				best = n
				break
			}
		}
	}
	return best
}

// Writer scrubs what is written through it to w, also a secret split
// across two writes: the end of a write that may be the start of a
// secret is held back until the next write says, or Flush. Every write
// holding nothing of a secret reaches w whole, in one Write. A nil
// scrubber's Writer is w.
func (s *Scrubber) Writer(w io.Writer) io.Writer {
	if s == nil {
		return w
	}
	return &ScrubWriter{w: w, s: s}
}

// ScrubWriter is Scrubber.Writer's writer.
type ScrubWriter struct {
	w    io.Writer
	s    *Scrubber
	held []byte
	buf  []byte
}

// Write scrubs p (after what an earlier write held back) and writes it,
// but for an end that may be the start of a secret.
func (sw *ScrubWriter) Write(p []byte) (int, error) {
	data := p
	if len(sw.held) > 0 {
		sw.buf = append(append(sw.buf[:0], sw.held...), p...)
		data = sw.buf
	}
	data = sw.s.Bytes(data)
	keep := sw.s.partial(data)
	if n := len(data) - keep; n > 0 {
		if _, err := sw.w.Write(data[:n]); err != nil {
			return 0, err
		}
	}
	sw.held = append(sw.held[:0], data[len(data)-keep:]...)
	return len(p), nil
}

// Flush writes what is held back: the stream ended, so it is no secret.
func (sw *ScrubWriter) Flush() error {
	if len(sw.held) == 0 {
		return nil
	}
	_, err := sw.w.Write(sw.held)
	sw.held = sw.held[:0]
	return err
}

// Pieces scrubs texts that are one text cut into pieces (a stream's
// chunks), each already scrubbed alone: a secret that spans pieces
// becomes Redacted in the piece where it starts, and its parts in the
// pieces after that become nothing. The pieces keep their places, so a
// chunk keeps its stamp. texts itself is returned when no secret spans
// two pieces.
func (s *Scrubber) Pieces(texts []string) []string {
	if s == nil || len(texts) < 2 {
		return texts
	}
	whole := strings.Join(texts, "")
	// cut[i] is where piece i starts in whole.
	cut := make([]int, len(texts)+1)
	for i, t := range texts {
		cut[i+1] = cut[i] + len(t)
	}
	piece := func(at int) int { return sort.Search(len(texts), func(i int) bool { return cut[i+1] > at }) }
	type span struct{ from, to int }
	var spans []span
	for _, k := range s.secrets {
		for at := 0; ; {
			i := strings.Index(whole[at:], string(k))
			if i < 0 {
				break
			}
			from, to := at+i, at+i+len(k)
			if piece(from) != piece(to-1) {
				spans = append(spans, span{from, to})
			}
			at = to
		}
	}
	if len(spans) == 0 {
		return texts
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	out := make([]string, len(texts))
	for p := range texts {
		var b strings.Builder
		for at := cut[p]; at < cut[p+1]; {
			inside := -1
			for j, sp := range spans {
				if at >= sp.from && at < sp.to {
					inside = j
					break
				}
			}
			if inside < 0 {
				b.WriteByte(whole[at])
				at++
				continue
			}
			sp := spans[inside]
			if at == sp.from {
				b.WriteString(Redacted)
			}
			at = min(sp.to, cut[p+1])
		}
		out[p] = b.String()
	}
	return out
}
