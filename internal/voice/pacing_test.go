package voice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
)

func chunksOf(pairs ...any) []stream.Chunk {
	var out []stream.Chunk
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, stream.Chunk{TMs: float64(pairs[i].(int)), Text: pairs[i+1].(string), Index: i/2 + 1})
	}
	return out
}

// TestPace on known answers: each sentence ready at the chunk that
// completed it, spoken in its characters / CharsPerS once its audio
// exists (TTSMs later) and the one before has been spoken; the waits
// are the stalls.
func TestPace(t *testing.T) {
	cases := []struct {
		name   string
		chunks []stream.Chunk
		sp     Speaker
		want   Pacing
	}{
		{"no stall: the text keeps ahead of the voice",
			chunksOf(100, "Please come in. ", 200, "We open at nine.", 300, " Bye"), Speaker{CharsPerS: 10},
			Pacing{SpeakMs: 3400, Sentences: []Paced{{"Please come in.", 15, 100, 100, 1600}, {"We open at nine.", 16, 300, 1600, 3200},
				{"Bye", 3, 300, 3200, 3500}}}},
		{"one stall: the second sentence comes late",
			chunksOf(0, "Hi. ", 1000, "Come at nine. ", 1500, "See you."), Speaker{CharsPerS: 10},
			Pacing{StallMs: 700, Stalls: 1, SpeakMs: 2400, Sentences: []Paced{{"Hi.", 3, 0, 0, 300}, {"Come at nine.", 13, 1000, 1000, 2300},
				{"See you.", 8, 1500, 2300, 3100}}}},
		{"TTSMs delays every sentence's audio",
			chunksOf(0, "Hi. ", 1000, "Come at nine. ", 1500, "See you."), Speaker{CharsPerS: 10, TTSMs: 250},
			Pacing{StallMs: 700, Stalls: 1, SpeakMs: 2400, Sentences: []Paced{{"Hi.", 3, 0, 250, 550}, {"Come at nine.", 13, 1000, 1250, 2550},
				{"See you.", 8, 1500, 2550, 3350}}}},
		{"Chinese: characters, not bytes, set the speaking time",
			chunksOf(100, "请带上身份证。", 150, "还有保险卡。", 2000, "谢谢。"), Speaker{CharsPerS: 5},
			Pacing{StallMs: 450, Stalls: 1, SpeakMs: 3200, Sentences: []Paced{{"请带上身份证。", 7, 150, 150, 1550}, {"还有保险卡。", 6, 2000, 2000, 3200},
				{"谢谢。", 3, 2000, 3200, 3800}}}},
		{"no sentence boundary: the whole answer at the last chunk",
			chunksOf(10, "we open at nine", 20, " and close", 30, " late"), Speaker{CharsPerS: DefaultCharsPerS},
			Pacing{SpeakMs: 2000, Sentences: []Paced{{"we open at nine and close late", 30, 30, 30, 2030}}}},
		{"only white space", chunksOf(5, "  "), Speaker{CharsPerS: 15}, Pacing{Sentences: []Paced{}}},
		{"no chunks", nil, Speaker{CharsPerS: 15}, Pacing{Sentences: []Paced{}}},
	}
	for _, c := range cases {
		got := c.sp.Pace(c.chunks)
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
		first, ok := got.FirstSentence()
		if ok != (len(c.want.Sentences) > 0) || ok && first != c.want.Sentences[0].ReadyMs {
			t.Errorf("%s: first sentence %v, %v", c.name, first, ok)
		}
	}
}

// pieces are tricky bits of answers: abbreviations, decimals, ellipses,
// quotes, CJK and Korean stops, clause marks.
var pieces = []string{"Hello there.", " Dr. Lee", " sees you at 8 a.m.", " tomorrow", " 3.5", " mg", "...", " Then", " go!", "?",
	" \"Yes.\"", " 你好。", "我是", "助手！", " 안녕하세요.", " e.g.", " etc.", " no.", " No. 5", "\n\n", " …", " OK", "—", ",", " ",
	"、", "，", " - ", "; "}

// randomAnswer is a seeded answer of pieces cut into random chunks at
// random, rising times.
func randomAnswer(rng *rand.Rand) []stream.Chunk {
	var b strings.Builder
	for n := rng.IntN(14); n >= 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	text := b.String()
	var chunks []stream.Chunk
	tMs := 0.0
	for len(text) > 0 {
		n := min(1+rng.IntN(9), len(text))
		tMs += rng.Float64() * 900
		chunks = append(chunks, stream.Chunk{TMs: tMs, Text: text[:n], Index: len(chunks) + 1})
		text = text[n:]
	}
	return chunks
}

// TestPaceAnyChunking: over seeded answers, the sentences are those of
// the whole answer (however it is cut into chunks), each ready at the
// first chunk after which the text so far decides it, and the schedule
// adds up: a sentence starts no sooner than its audio exists and the one
// before has ended, waits only when the speaker had nothing to say, and
// the speaker's time is its speaking plus its stalls.
func TestPaceAnyChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	for trial := 0; trial < 500; trial++ {
		chunks := randomAnswer(rng)
		sp := Speaker{CharsPerS: 1 + rng.Float64()*20, TTSMs: rng.Float64() * 300}
		p := sp.Pace(chunks)
		var whole strings.Builder
		for _, c := range chunks {
			whole.WriteString(c.Text)
		}
		var all sentence.Splitter
		want := append(all.Feed(whole.String(), 0), all.End(0)...)
		if len(want) != len(p.Sentences) {
			t.Fatalf("trial %d %q: %d sentences, the whole answer has %d", trial, whole.String(), len(p.Sentences), len(want))
		}
		var stall, speak float64
		for i, s := range p.Sentences {
			if s.Text != want[i].Text || s.Chars != sentence.Chars(s.Text) {
				t.Fatalf("trial %d: sentence %d is %q (%d chars), the whole answer's is %q", trial, i+1, s.Text, s.Chars, want[i].Text)
			}
			if r := readyAt(chunks, p.Sentences[:i+1]); s.ReadyMs != r {
				t.Fatalf("trial %d: sentence %d %q ready at %v, the text first decides it at %v", trial, i+1, s.Text, s.ReadyMs, r)
			}
			audio := s.ReadyMs + sp.TTSMs
			if s.StartMs < audio || i > 0 && s.StartMs < p.Sentences[i-1].EndMs {
				t.Fatalf("trial %d: sentence %d starts at %v, before its audio (%v) or the end of the one before", trial, i+1, s.StartMs, audio)
			}
			if i > 0 {
				gap := s.StartMs - p.Sentences[i-1].EndMs
				if gap > 0 && s.StartMs != audio {
					t.Fatalf("trial %d: sentence %d waits %v though its audio existed", trial, i+1, gap)
				}
				stall += gap
			}
			speak += s.EndMs - s.StartMs
		}
		if n := len(p.Sentences); n > 0 {
			span := p.Sentences[n-1].EndMs - p.Sentences[0].StartMs
			if math.Abs(span-p.SpeakMs-p.StallMs) > 1e-6 || math.Abs(stall-p.StallMs) > 1e-6 {
				t.Fatalf("trial %d: span %v, speaking %v, stalls %v (%v between the sentences)", trial, span, p.SpeakMs, p.StallMs, stall)
			}
		}
	}
}

// readyAt is when the last of done was decided, tried chunk by chunk: the
// first chunk after which the text so far holds every sentence of done
// and the last of them is complete (the last chunk for the rest of the
// answer).
func readyAt(chunks []stream.Chunk, done []Paced) float64 {
	for i := range chunks {
		var sp sentence.Splitter
		n := 0
		for _, c := range chunks[:i+1] {
			n += len(sp.Feed(c.Text, c.TMs))
		}
		if n >= len(done) {
			return chunks[i].TMs
		}
	}
	return chunks[len(chunks)-1].TMs
}

// TestFirstClause on known answers.
func TestFirstClause(t *testing.T) {
	cases := []struct {
		chunks   []stream.Chunk
		minChars int
		tMs      float64
		clause   string
		ok       bool
	}{
		// The comma waits for the white space after it.
		{chunksOf(10, "Please bring your photo ID,", 20, " your card.", 30, " Bye"), 20, 20, "Please bring your photo ID,", true},
		{chunksOf(10, "Please bring your photo ID,", 20, " your card.", 30, " Bye"), 50, 30, "Please bring your photo ID, your card.", true},
		{chunksOf(10, "请带上您的身份证、", 20, "保险卡和药物清单，", 30, "我们八点开门。好"), 8, 10, "请带上您的身份证、", true},
		{chunksOf(10, "请带上您的身份证、", 20, "保险卡和药物清单，", 30, "我们八点开门。好"), 10, 20, "请带上您的身份证、保险卡和药物清单，", true},
		{chunksOf(10, "请带上您的身份证、", 20, "保险卡和药物清单，", 30, "我们八点开门。好"), 20, 30, "请带上您的身份证、保险卡和药物清单，我们八点开门。", true},
		{chunksOf(1, " no mark at all", 2, " here"), 20, 2, " no mark at all here", true},
		{chunksOf(1, "  "), 20, 0, "", false},
		{nil, 20, 0, "", false},
	}
	for _, c := range cases {
		tMs, clause, ok := FirstClause(c.chunks, c.minChars)
		if tMs != c.tMs || clause != c.clause || ok != c.ok {
			t.Errorf("%+v (min %d): %v %q %v, want %v %q %v", c.chunks, c.minChars, tMs, clause, ok, c.tMs, c.clause, c.ok)
		}
	}
}

// TestFirstClauseAnyChunking: over seeded answers, FirstClause's search
// finds what trying every chunk in turn finds, and the clause is never
// later than the first sentence.
func TestFirstClauseAnyChunking(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	for trial := 0; trial < 500; trial++ {
		chunks := randomAnswer(rng)
		minChars := rng.IntN(30)
		tMs, clause, ok := FirstClause(chunks, minChars)
		wantT, wantClause, wantOK := 0.0, "", false
		var text strings.Builder
		for _, c := range chunks {
			text.WriteString(c.Text)
			if e, ok := sentence.FirstClause(text.String(), false, minChars); ok {
				wantT, wantClause, wantOK = c.TMs, text.String()[:e], true
				break
			}
		}
		if !wantOK && len(chunks) > 0 {
			if e, ok := sentence.FirstClause(text.String(), true, minChars); ok {
				wantT, wantClause, wantOK = chunks[len(chunks)-1].TMs, text.String()[:e], true
			}
		}
		if tMs != wantT || clause != wantClause || ok != wantOK {
			t.Fatalf("trial %d %+v (min %d): %v %q %v, chunk by chunk %v %q %v", trial, chunks, minChars, tMs, clause, ok, wantT, wantClause, wantOK)
		}
		if first, has := (Speaker{CharsPerS: 15}).Pace(chunks).FirstSentence(); has && (!ok || tMs > first) {
			t.Fatalf("trial %d: first clause at %v (%v), first sentence at %v", trial, tMs, ok, first)
		}
	}
}
