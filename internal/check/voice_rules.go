package check

import "fmt"

// voiceRules check what a voice agent needs: the text keeps ahead of the
// speaker, an interrupted answer's cache serves the next turn, and a
// changing line costs less cache the later it stands.
var voiceRules = []rule{
	{"sentence pacing", []string{"sentence.json"}, checkPacing},
	{"bargein resumed reuses the cache", []string{"bargein.json"}, func(l *lab) error {
		r, c := l.bargein.resumed, l.bargein.cold
		if !(r.cacheN > 0 && r.promptN < c.promptN) {
			return fmt.Errorf("resumed cache_n %s, prompt_n %s against cold prompt_n %s: the follow-up after the cut should reuse the interrupted turn's cache",
				num(r.cacheN), num(r.promptN), num(c.promptN))
		}
		return l.pass("resumed prompt_n %s (cache_n %s), cold prompt_n %s", num(r.promptN), num(r.cacheN), num(c.promptN))
	}},
	{"bargein resumed answers sooner", []string{"bargein.json"}, func(l *lab) error {
		r, c := l.bargein.resumed, l.bargein.cold
		if !(r.ttftMs < c.ttftMs) {
			return fmt.Errorf("resumed ttft_ms %s is not below cold ttft_ms %s", num(r.ttftMs), num(c.ttftMs))
		}
		return l.pass("ttft %s ms resumed, %s ms cold", num(r.ttftMs), num(c.ttftMs))
	}},
	{"bargein cut and idle", []string{"bargein.json"}, func(l *lab) error {
		b := l.bargein
		if !(b.receivedTokens >= 1 && b.closedAtMs > 0 && b.slotIdleAfterMs >= 0) {
			return fmt.Errorf("received_tokens %s, closed_at_ms %s, slot_idle_after_ms %s: want a cut after at least one token and an idle slot",
				num(b.receivedTokens), num(b.closedAtMs), num(b.slotIdleAfterMs))
		}
		return l.pass("%s tokens, closed at %s ms, idle %s ms later", num(b.receivedTokens), num(b.closedAtMs), num(b.slotIdleAfterMs))
	}},
	{"prefix cache_n grows later", []string{"prefix.json"}, func(l *lab) error {
		rows := l.prefix
		for i := 1; i < len(rows); i++ {
			if rows[i].cost.cacheN < rows[i-1].cost.cacheN {
				return fmt.Errorf("cache_n %s with the line %s is below %s with it %s: the later the changing line, the more the cache keeps",
					num(rows[i].cost.cacheN), rows[i].position, num(rows[i-1].cost.cacheN), rows[i-1].position)
			}
		}
		first, last := rows[0], rows[len(rows)-1]
		if !(last.cost.cacheN > first.cost.cacheN) {
			return fmt.Errorf("cache_n %s %s is not above %s %s", num(last.cost.cacheN), last.position, num(first.cost.cacheN), first.position)
		}
		return l.pass("cache_n %s %s to %s %s", num(first.cost.cacheN), first.position, num(last.cost.cacheN), last.position)
	}},
	{"prefix cache_n is the first difference", []string{"prefix.json"}, func(l *lab) error {
		n := 0
		for _, r := range l.prefix {
			if r.firstDifference == nil {
				continue
			}
			n++
			if r.cost.cacheN != *r.firstDifference {
				return fmt.Errorf("with the line %s cache_n is %s but the prompts share %s tokens (first_difference): the server reused %s than its tokenizer allows",
					r.position, num(r.cost.cacheN), num(*r.firstDifference), map[bool]string{true: "more", false: "less"}[r.cost.cacheN > *r.firstDifference])
			}
		}
		if n == 0 {
			return skip("prefix.json has no first_difference (the server has no /apply-template or /tokenize)")
		}
		return l.pass("equal at %d places", n)
	}},
}

// checkPacing: sentences are spoken in order, none before it is ready,
// and the first clause is never later than the first sentence.
func checkPacing(l *lab) error {
	p := l.sentence.pacing
	if p == nil {
		return skip("sentence.json has no pacing")
	}
	if len(p.sentences) == 0 {
		return fmt.Errorf("pacing.sentences is empty, but the answer has a first sentence")
	}
	first := p.sentences[0].readyMs
	if !(p.stallMs >= 0 && p.stalls >= 0 && p.startMs >= first && p.endMs >= p.startMs) {
		return fmt.Errorf("start_ms %s, end_ms %s, stall_ms %s: speaking must start once the first sentence (ready at %s ms) is, and end after it starts",
			num(p.startMs), num(p.endMs), num(p.stallMs), num(first))
	}
	for i, s := range p.sentences {
		if s.startMs < s.readyMs || s.endMs < s.startMs || (i > 0 && s.startMs < p.sentences[i-1].endMs) {
			return fmt.Errorf("sentences[%d] ready %s, start %s, end %s: a sentence starts after it is ready and after the one before ends",
				i+1, num(s.readyMs), num(s.startMs), num(s.endMs))
		}
	}
	if c := p.firstClauseMs; c != nil && *c > first {
		return fmt.Errorf("first_clause_ms %s is after the first sentence was ready (%s ms)", num(*c), num(first))
	}
	return l.pass("%d sentences spoken from %s to %s ms, %s stalls (%s ms)", len(p.sentences), num(p.startMs), num(p.endMs), num(p.stalls), num(p.stallMs))
}
