package sse

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// gotLine is a copied line with the stamp it came with.
type gotLine struct {
	text  string
	stamp time.Duration
}

// feedAll feeds parts one by one, stamping part k with k, and collects every
// line. It fails the test on a splitter error.
func feedAll(t *testing.T, s *Splitter, parts [][]byte) []gotLine {
	t.Helper()
	var out []gotLine
	for k, p := range parts {
		s.Feed(p, time.Duration(k))
		for {
			l, ok := s.Next()
			if !ok {
				break
			}
			out = append(out, gotLine{string(l.Text), l.Stamp})
		}
		if err := s.Err(); err != nil {
			t.Fatalf("feed %d: %v", k, err)
		}
	}
	return out
}

// refLines is an independent, byte-at-a-time reading of the line rules: it
// returns each line and the offset of the first byte of its terminator, plus
// the unterminated rest.
func refLines(in []byte) (lines []string, termAt []int, rest string) {
	i := 0
	if bytes.HasPrefix(in, bom[:]) {
		i = len(bom)
	}
	start := i
	for i < len(in) {
		switch in[i] {
		case '\n':
			lines, termAt = append(lines, string(in[start:i])), append(termAt, i)
			i++
			start = i
		case '\r':
			lines, termAt = append(lines, string(in[start:i])), append(termAt, i)
			i++
			if i < len(in) && in[i] == '\n' {
				i++
			}
			start = i
		default:
			i++
		}
	}
	return lines, termAt, string(in[start:])
}

// cut splits in at the given ascending offsets.
func cut(in []byte, at ...int) [][]byte {
	var parts [][]byte
	prev := 0
	for _, a := range at {
		parts = append(parts, in[prev:a])
		prev = a
	}
	return append(parts, in[prev:])
}

// partOf returns the index of the part that holds byte offset off.
func partOf(parts [][]byte, off int) int {
	for k, p := range parts {
		if off < len(p) {
			return k
		}
		off -= len(p)
	}
	return -1
}

// checkSplit feeds parts and compares lines, stamps and the pending rest with
// the reference reading of their concatenation.
func checkSplit(t *testing.T, parts [][]byte) {
	t.Helper()
	in := bytes.Join(parts, nil)
	lines, termAt, rest := refLines(in)
	var s Splitter
	got := feedAll(t, &s, parts)
	if len(got) != len(lines) {
		t.Fatalf("parts %q: got %d lines %v, want %d %q", parts, len(got), got, len(lines), lines)
	}
	for i, g := range got {
		wantStamp := time.Duration(partOf(parts, termAt[i]))
		if g.text != lines[i] || g.stamp != wantStamp {
			t.Fatalf("parts %q: line %d = %q@%d, want %q@%d", parts, i, g.text, g.stamp, lines[i], wantStamp)
		}
	}
	if s.Pending() != len(rest) {
		t.Fatalf("parts %q: Pending() = %d, want %d (%q)", parts, s.Pending(), len(rest), rest)
	}
}

const mixedInput = "\xEF\xBB\xBFdata: a\r\n\r\nline2\rline3\n\n\r\r\n: comment\ndata: \u00e9\u20ac\U0001F600\r\n\xEF\xBB\xBFkept\r\rtail"

func TestSplitEndings(t *testing.T) {
	var s Splitter
	got := feedAll(t, &s, [][]byte{[]byte("a\nb\r\nc\rd\r\n\ne")})
	want := []gotLine{{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"", 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s.Pending() != 1 {
		t.Fatalf("Pending() = %d, want 1 for the unterminated %q", s.Pending(), "e")
	}
}

func TestSplitCRLFAcrossFeeds(t *testing.T) {
	var s Splitter
	got := feedAll(t, &s, [][]byte{[]byte("one\r"), []byte("\ntwo\r"), []byte("\rthree\n")})
	// "one\r" + "\n" is one terminator; "two\r" + "\r" are two.
	want := []gotLine{{"one", 0}, {"two", 1}, {"", 2}, {"three", 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestSplitCRThenEmptyFeedThenLF(t *testing.T) {
	var s Splitter
	got := feedAll(t, &s, [][]byte{[]byte("a\r"), nil, []byte("\nb\n")})
	want := []gotLine{{"a", 0}, {"b", 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestSplitBOM(t *testing.T) {
	cases := []struct {
		name  string
		parts []string
		want  []string
	}{
		{"whole", []string{"\xEF\xBB\xBFa\n"}, []string{"a"}},
		{"split", []string{"\xEF", "\xBB", "\xBFa\n"}, []string{"a"}},
		{"only at start", []string{"a\n\xEF\xBB\xBFb\n"}, []string{"a", "\xEF\xBB\xBFb"}},
		{"false start", []string{"\xEF\xBB", "x\n"}, []string{"\xEF\xBBx"}},
		{"twice", []string{"\xEF\xBB\xBF\xEF\xBB\xBFa\n"}, []string{"\xEF\xBB\xBFa"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var parts [][]byte
			for _, p := range c.parts {
				parts = append(parts, []byte(p))
			}
			var s Splitter
			var texts []string
			for _, g := range feedAll(t, &s, parts) {
				texts = append(texts, g.text)
			}
			if fmt.Sprint(texts) != fmt.Sprint(c.want) {
				t.Fatalf("got %q, want %q", texts, c.want)
			}
		})
	}
}

func TestSplitPartialBOMAtEndIsPending(t *testing.T) {
	var s Splitter
	feedAll(t, &s, [][]byte{[]byte("\xEF\xBB")})
	if s.Pending() != 2 {
		t.Fatalf("Pending() = %d, want 2", s.Pending())
	}
}

func TestSplitEveryBoundary(t *testing.T) {
	in := []byte(mixedInput)
	for i := 0; i <= len(in); i++ {
		checkSplit(t, cut(in, i))
		for j := i; j <= len(in); j++ {
			checkSplit(t, cut(in, i, j))
		}
	}
}

func TestSplitEveryReadSize(t *testing.T) {
	in := []byte(mixedInput)
	for size := 1; size <= len(in); size++ {
		var at []int
		for a := size; a < len(in); a += size {
			at = append(at, a)
		}
		checkSplit(t, cut(in, at...))
	}
}

func TestSplitRandomReads(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab\r\n:\xEF\xBB\xBF ")
	for round := 0; round < 2000; round++ {
		in := make([]byte, rng.Intn(40))
		for i := range in {
			in[i] = alphabet[rng.Intn(len(alphabet))]
		}
		var at []int
		for a := rng.Intn(4); a < len(in); a += 1 + rng.Intn(5) {
			at = append(at, a)
		}
		checkSplit(t, cut(in, at...))
	}
}

func TestSplitLongLine(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	in := []byte("a\n" + long + "\nb\n")
	var parts [][]byte
	for len(in) > 0 {
		n := min(len(in), 64<<10)
		parts, in = append(parts, in[:n]), in[n:]
	}
	var s Splitter
	got := feedAll(t, &s, parts)
	if len(got) != 3 || got[0].text != "a" || got[1].text != long || got[2].text != "b" {
		t.Fatalf("got %d lines, want a, the 3 MiB line, b", len(got))
	}
}

func TestSplitMaxLine(t *testing.T) {
	cases := []struct {
		name  string
		parts []string
	}{
		{"within one feed", []string{"ok\n0123456789A\n"}},
		{"across feeds", []string{"ok\n01234", "56789A\n"}},
		{"never terminated", []string{"ok\n01234", "56789", "ABCDEF"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Splitter{MaxLine: 10}
			var lines []string
			var err error
			for k, p := range c.parts {
				s.Feed([]byte(p), time.Duration(k))
				for {
					l, ok := s.Next()
					if !ok {
						break
					}
					lines = append(lines, string(l.Text))
				}
				if err = s.Err(); err != nil {
					break
				}
			}
			if !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("err = %v, want ErrLineTooLong", err)
			}
			if !strings.Contains(err.Error(), "10-byte limit") {
				t.Fatalf("error %q does not name the limit", err)
			}
			if fmt.Sprint(lines) != "[ok]" {
				t.Fatalf("lines before the error = %q, want [ok]", lines)
			}
			// The splitter stays stopped.
			s.Feed([]byte("more\n"), 9)
			if _, ok := s.Next(); ok || s.Err() == nil {
				t.Fatal("splitter went on after its error")
			}
		})
	}
}

func TestSplitExactlyMaxLineIsFine(t *testing.T) {
	s := Splitter{MaxLine: 4}
	got := feedAll(t, &s, [][]byte{[]byte("ab"), []byte("cd\n")})
	if len(got) != 1 || got[0].text != "abcd" {
		t.Fatalf("got %v, want [abcd]", got)
	}
}

func TestSplitFeedBeforeDrainPanics(t *testing.T) {
	var s Splitter
	s.Feed([]byte("a\nb\n"), 0)
	s.Next()
	defer func() {
		if recover() == nil {
			t.Fatal("Feed with unread lines did not panic")
		}
	}()
	s.Feed([]byte("c\n"), 1)
}

func TestSplitNoCopyWithinFeed(t *testing.T) {
	var s Splitter
	in := []byte("hello\nworld\n")
	s.Feed(in, 0)
	l, _ := s.Next()
	if &l.Text[0] != &in[0] {
		t.Fatal("a line inside one feed was copied")
	}
}
