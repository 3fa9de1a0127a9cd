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
	{"bargein runs", []string{"bargein.json"}, func(l *lab) error {
		b := l.bargein
		return l.checkRuns(len(b.Discarded), runsOf{name: "bargein.json", repeat: b.Repeat, runs: len(b.Runs), top: b, first: firstRun(b.Runs)})
	}},
	{"bargein resumed reuses the cache", []string{"bargein.json"}, func(l *lab) error {
		return eachRepetition(l, l.bargein.Repetitions(), func(b artifact.Bargein) (string, error) {
			r, c := b.Resumed, b.Cold
			if !(r.Cached() > 0 && r.PromptN < c.PromptN) {
				return "", fmt.Errorf("resumed cache_n %s, prompt_n %s against cold prompt_n %s: the follow-up after the cut should reuse the interrupted turn's cache",
					num(r.Cached()), num(r.PromptN), num(c.PromptN))
			}
			return fmt.Sprintf("resumed prompt_n %s (cache_n %s), cold prompt_n %s", num(r.PromptN), num(r.Cached()), num(c.PromptN)), nil
		})
	}},
	{"bargein resumed answers sooner", []string{"bargein.json"}, func(l *lab) error {
		return eachRepetition(l, l.bargein.Repetitions(), func(b artifact.Bargein) (string, error) {
			r, c := b.Resumed, b.Cold
			if !(r.TTFTMs < c.TTFTMs) {
				return "", fmt.Errorf("resumed ttft_ms %s is not below cold ttft_ms %s", num(r.TTFTMs), num(c.TTFTMs))
			}
			return fmt.Sprintf("ttft %s ms resumed, %s ms cold", num(r.TTFTMs), num(c.TTFTMs)), nil
		})
	}},
	{"bargein cut and idle", []string{"bargein.json"}, func(l *lab) error {
		return eachRepetition(l, l.bargein.Repetitions(), func(b artifact.Bargein) (string, error) {
			if !(b.ReceivedTokens >= 1 && b.ClosedAtMs > 0 && b.SlotIdleAfterMs >= 0) {
				return "", fmt.Errorf("received_tokens %s, closed_at_ms %s, slot_idle_after_ms %s: want a cut after at least one token and an idle slot",
					num(b.ReceivedTokens), num(b.ClosedAtMs), num(b.SlotIdleAfterMs))
			}
			return fmt.Sprintf("%s tokens, closed at %s ms, idle %s ms later", num(b.ReceivedTokens), num(b.ClosedAtMs), num(b.SlotIdleAfterMs)), nil
		})
	}},
	{"prefix runs", []string{"prefix.json"}, checkPrefixRuns},
	{"prefix cache_n grows later", []string{"prefix.json"}, checkPrefixGrowsLater},
	{"prefix cache_n is the first difference", []string{"prefix.json"}, checkPrefixFirstDifference},
}

// checkPacing: in every repetition, sentences are spoken in order, none
// before it is ready, and the first clause is never later than the first
// sentence.
func checkPacing(l *lab) error {
	runs := l.sentence.Repetitions()
	if runs[0].Pacing == nil {
		return skip("sentence.json has no pacing")
	}
	return eachRepetition(l, runs, func(r artifact.SentenceRun) (string, error) {
		p := r.Pacing
		if p == nil {
			return "", fmt.Errorf("no pacing, but the first repetition has one")
		}
		if err := pacingHolds(p); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d sentences spoken from %s to %s ms, %s stalls (%s ms)", len(p.Sentences), num(p.StartMs), num(p.EndMs), num(p.Stalls), num(p.StallMs)), nil
	})
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
