package check

import (
	"fmt"

	"ttftlab/internal/artifact"
)

// voiceRules check what a voice agent needs: the text keeps ahead of the
// speaker, an interrupted answer's cache serves the next turn, and a
// changing line costs less cache the later it stands.
var voiceRules = []rule{
	{"sentence pacing", []string{"sentence.json"}, checkPacing},
	{"bargein resumed reuses the cache", []string{"bargein.json"}, func(l *lab) error {
		r, c := l.bargein.Resumed, l.bargein.Cold
		if !(r.Cached() > 0 && r.PromptN < c.PromptN) {
			return fmt.Errorf("resumed cache_n %s, prompt_n %s against cold prompt_n %s: the follow-up after the cut should reuse the interrupted turn's cache",
				num(r.Cached()), num(r.PromptN), num(c.PromptN))
		}
		return l.pass("resumed prompt_n %s (cache_n %s), cold prompt_n %s", num(r.PromptN), num(r.Cached()), num(c.PromptN))
	}},
	{"bargein resumed answers sooner", []string{"bargein.json"}, func(l *lab) error {
		r, c := l.bargein.Resumed, l.bargein.Cold
		if !(r.TTFTMs < c.TTFTMs) {
			return fmt.Errorf("resumed ttft_ms %s is not below cold ttft_ms %s", num(r.TTFTMs), num(c.TTFTMs))
		}
		return l.pass("ttft %s ms resumed, %s ms cold", num(r.TTFTMs), num(c.TTFTMs))
	}},
	{"bargein cut and idle", []string{"bargein.json"}, func(l *lab) error {
		b := l.bargein
		if !(b.ReceivedTokens >= 1 && b.ClosedAtMs > 0 && b.SlotIdleAfterMs >= 0) {
			return fmt.Errorf("received_tokens %s, closed_at_ms %s, slot_idle_after_ms %s: want a cut after at least one token and an idle slot",
				num(b.ReceivedTokens), num(b.ClosedAtMs), num(b.SlotIdleAfterMs))
		}
		return l.pass("%s tokens, closed at %s ms, idle %s ms later", num(b.ReceivedTokens), num(b.ClosedAtMs), num(b.SlotIdleAfterMs))
	}},
	{"prefix cache_n grows later", []string{"prefix.json"}, func(l *lab) error {
		rows := l.prefix.Positions
		for i := 1; i < len(rows); i++ {
			if rows[i].Tokens().Cached() < rows[i-1].Tokens().Cached() {
				return fmt.Errorf("cache_n %s with the line %s is below %s with it %s: the later the changing line, the more the cache keeps",
					num(rows[i].Tokens().Cached()), rows[i].Position, num(rows[i-1].Tokens().Cached()), rows[i-1].Position)
			}
		}
		first, last := rows[0], rows[len(rows)-1]
		if !(last.Tokens().Cached() > first.Tokens().Cached()) {
			return fmt.Errorf("cache_n %s %s is not above %s %s", num(last.Tokens().Cached()), last.Position, num(first.Tokens().Cached()), first.Position)
		}
		return l.pass("cache_n %s %s to %s %s", num(first.Tokens().Cached()), first.Position, num(last.Tokens().Cached()), last.Position)
	}},
	{"prefix cache_n is the first difference", []string{"prefix.json"}, func(l *lab) error {
		n := 0
		for _, r := range l.prefix.Positions {
			if r.FirstDifference == nil {
				continue
			}
			n++
			if r.Tokens().Cached() != *r.FirstDifference {
				return fmt.Errorf("with the line %s cache_n is %s but the prompts share %s tokens (first_difference): the server reused %s than its tokenizer allows",
					r.Position, num(r.Tokens().Cached()), num(*r.FirstDifference), map[bool]string{true: "more", false: "less"}[r.Tokens().Cached() > *r.FirstDifference])
			}
		}
		if n == 0 {
			return skip("prefix.json has no first_difference (the server has no /apply-template or /tokenize)")
		}
		return l.pass("equal at %d places", n)
	}},
}

// checkPacing: in every repetition, sentences are spoken in order, none
// before it is ready, and the first clause is never later than the first
// sentence.
func checkPacing(l *lab) error {
	runs := l.sentence.Repetitions()
	if runs[0].Pacing == nil {
		return skip("sentence.json has no pacing")
	}
	for i, r := range runs {
		if r.Pacing == nil {
			return fmt.Errorf("%sno pacing, but the first repetition has one", repetition(i, len(runs)))
		}
		if err := pacingHolds(r.Pacing); err != nil {
			return fmt.Errorf("%s%w", repetition(i, len(runs)), err)
		}
	}
	p := runs[0].Pacing
	return l.pass("%d sentences spoken from %s to %s ms, %s stalls (%s ms)%s", len(p.Sentences), num(p.StartMs), num(p.EndMs), num(p.Stalls), num(p.StallMs), everyRun(len(runs)))
}

// pacingHolds is checkPacing's rule for one answer.
func pacingHolds(p *artifact.Pacing) error {
	if len(p.Sentences) == 0 {
		return fmt.Errorf("pacing.sentences is empty, but the answer has a first sentence")
	}
	first := p.Sentences[0].ReadyMs
	if !(p.StallMs >= 0 && p.Stalls >= 0 && p.StartMs >= first && p.EndMs >= p.StartMs) {
		return fmt.Errorf("start_ms %s, end_ms %s, stall_ms %s: speaking must start once the first sentence (ready at %s ms) is, and end after it starts",
			num(p.StartMs), num(p.EndMs), num(p.StallMs), num(first))
	}
	for i, s := range p.Sentences {
		if s.StartMs < s.ReadyMs || s.EndMs < s.StartMs || (i > 0 && s.StartMs < p.Sentences[i-1].EndMs) {
			return fmt.Errorf("sentences[%d] ready %s, start %s, end %s: a sentence starts after it is ready and after the one before ends",
				i+1, num(s.ReadyMs), num(s.StartMs), num(s.EndMs))
		}
	}
	if c := p.FirstClauseMs; c != nil && *c > first {
		return fmt.Errorf("first_clause_ms %s is after the first sentence was ready (%s ms)", num(*c), num(first))
	}
	return nil
}
