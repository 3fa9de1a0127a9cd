package stream

import (
	"strings"
	"unicode/utf8"
)

// fastChunk decodes a chunk in the shape llama-server streams:
//
//	{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"..."}}],"created":...}
//
// It reports false for anything it does not handle exactly as
// encoding/json would: invalid JSON, "timings", "usage" or "error"
// members, a known member given twice, or spelled with other letter case
// (encoding/json matches names case-insensitively), a value of an
// unexpected type, \u escapes and invalid UTF-8 in the strings it keeps,
// or deep nesting, and reasoning, tool-call and prompt_progress members.
// The caller then decodes with encoding/json.
func fastChunk(data []byte) (c chunkFields, ok bool) {
	return fastDecode(data, false)
}

// fastCompletion is fastChunk for the completions API, whose choices carry
// the content in "text" instead of a delta:
//
//	{"choices":[{"text":"...","index":0,"logprobs":null,"finish_reason":null}],"created":...}
func fastCompletion(data []byte) (c chunkFields, ok bool) {
	return fastDecode(data, true)
}

// fastDecode is fastChunk (text false) and fastCompletion (text true).
func fastDecode(data []byte, text bool) (c chunkFields, ok bool) {
	s := scanner{b: data, text: text}
	if !s.open('{') {
		return c, false
	}
	sawChoices := false
	for first := true; ; first = false {
		key, done, ok := s.nextKey(first)
		switch {
		case !ok:
			return c, false
		case done:
			s.space()
			return c, s.i == len(s.b)
		case string(key) == "choices" && !sawChoices:
			sawChoices = true
			if !s.choices(&c) {
				return c, false
			}
		case foldsToAny(key, "choices", "timings", "usage", "error", "prompt_progress"):
			return c, false
		default:
			if !s.skip(0) {
				return c, false
			}
		}
	}
}

// choices reads the value of "choices": null or an array of choice objects.
func (s *scanner) choices(c *chunkFields) bool {
	if s.literal("null") {
		return true
	}
	if !s.open('[') {
		return false
	}
	c.hasChoices = true
	for first := true; ; first = false {
		done, ok := s.nextItem(first)
		if !ok || done {
			return ok
		}
		if !s.choice(c, c.nChoices == 0) {
			return false
		}
		c.nChoices++
	}
}

// choice reads one choice object; keep is true for choices[0], the one
// whose fields are recorded.
func (s *scanner) choice(c *chunkFields, keep bool) bool {
	if !s.open('{') {
		return false
	}
	sawDelta, sawFinish := false, false
	for first := true; ; first = false {
		key, done, ok := s.nextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		case s.text && string(key) == "text" && !sawDelta:
			sawDelta = true
			v, isNull, ok := s.optString()
			if !ok {
				return false
			}
			if keep && !isNull {
				c.content, c.hasContent = v, true
			}
		case !s.text && string(key) == "delta" && !sawDelta:
			sawDelta = true
			if !s.delta(c, keep) {
				return false
			}
		case string(key) == "finish_reason" && !sawFinish:
			sawFinish = true
			v, isNull, ok := s.optString()
			if !ok {
				return false
			}
			if keep && !isNull {
				c.finish, c.hasFinish = v, true
			}
		case foldsToAny(key, s.contentKey(), "finish_reason"):
			return false
		default:
			if !s.skip(0) {
				return false
			}
		}
	}
}

// contentKey is the choice member that holds the content: "delta" (an
// object) for chat, "text" (a string) for completions.
func (s *scanner) contentKey() string {
	if s.text {
		return "text"
	}
	return "delta"
}

// delta reads a choice's delta object.
func (s *scanner) delta(c *chunkFields, keep bool) bool {
	if !s.open('{') {
		return false
	}
	sawContent := false
	for first := true; ; first = false {
		key, done, ok := s.nextKey(first)
		switch {
		case !ok:
			return false
		case done:
			return true
		case string(key) == "content" && !sawContent:
			sawContent = true
			v, isNull, ok := s.optString()
			if !ok {
				return false
			}
			if keep && !isNull {
				c.content, c.hasContent = v, true
			}
		case foldsToAny(key, "content", "reasoning_content", "reasoning", "tool_calls"):
			return false
		default:
			if !s.skip(0) {
				return false
			}
		}
	}
}

// optString reads a string or null. Strings with \u escapes or invalid
// UTF-8 are refused: encoding/json's handling of surrogates and bad bytes
// is not worth repeating for chunks that practically never carry them.
func (s *scanner) optString() (v string, isNull, ok bool) {
	if s.literal("null") {
		return "", true, true
	}
	raw, escaped, ok := s.str()
	if !ok || !validUTF8(raw) {
		return "", false, false
	}
	if !escaped {
		return internText(raw), false, true
	}
	v, ok = unescape(raw)
	return v, false, ok
}

// internText avoids allocating the strings every stream repeats.
func internText(raw []byte) string {
	switch string(raw) {
	case "":
		return ""
	case "stop":
		return "stop"
	case "length":
		return "length"
	}
	return string(raw)
}

// unescape decodes a string's simple escapes; \u escapes report false.
func unescape(raw []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++ // str() guarantees a valid escape follows
		switch raw[i] {
		case '"', '\\', '/':
			b.WriteByte(raw[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return "", false
		}
	}
	return b.String(), true
}

func validUTF8(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// foldsToAny reports whether encoding/json could match key to one of the
// names: the same letters in another case, or any non-ASCII key (Unicode
// case folding maps e.g. the Kelvin sign to k).
func foldsToAny(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}
