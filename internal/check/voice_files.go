package check

// The files of the voice steps: barge-in and the changing line's place,
// and the speech pacing in sentence.json.

// turnCost is one timed request: what the server evaluated and reused.
type turnCost struct {
	promptN, cacheN, ttftMs float64
}

func (p *parser) turnCost(n node) turnCost {
	if !p.obj(n) {
		return turnCost{}
	}
	return turnCost{promptN: p.num(n.key("prompt_n")), cacheN: p.num(n.key("cache_n")), ttftMs: p.num(n.key("ttft_ms"))}
}

type bargeinFile struct {
	receivedTokens, closedAtMs, slotIdleAfterMs float64
	resumed, cold                               turnCost
}

func (l *lab) loadBargein(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	l.bargein = bargeinFile{
		receivedTokens:  p.num(n.key("received_tokens")),
		closedAtMs:      p.num(n.key("closed_at_ms")),
		slotIdleAfterMs: p.num(n.key("slot_idle_after_ms")),
		resumed:         p.turnCost(n.key("resumed")),
		cold:            p.turnCost(n.key("cold")),
	}
	return p.err()
}

// prefixRow is one place of the changing line.
type prefixRow struct {
	position string
	cost     turnCost
	// firstDifference is what the server's tokenizer allows to reuse; nil
	// when the server could not tell.
	firstDifference *float64
}

func (l *lab) loadPrefix(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	rows := n.key("positions")
	l.prefix = nil
	for i := 0; i < p.arr(rows); i++ {
		r := rows.at(i)
		if !p.obj(r) {
			continue
		}
		row := prefixRow{position: p.str(r.key("position")), cost: p.turnCost(r)}
		if fd := r.key("first_difference"); fd.present && fd.v != nil {
			row.firstDifference = p.optNum(fd)
		}
		l.prefix = append(l.prefix, row)
	}
	if len(l.prefix) < 2 {
		p.problems = append(p.problems, "positions needs at least 2 places of the changing line")
	}
	return p.err()
}

// pacingFile is sentence.json's pacing block (absent in older runs).
type pacingFile struct {
	startMs, endMs, stallMs, stalls float64
	firstClauseMs                   *float64
	sentences                       []spokenSentence
}

type spokenSentence struct {
	readyMs, startMs, endMs float64
}

func (p *parser) pacing(n node) *pacingFile {
	if !n.present {
		return nil
	}
	if !p.obj(n) {
		return nil
	}
	f := &pacingFile{startMs: p.num(n.key("start_ms")), endMs: p.num(n.key("end_ms")),
		stallMs: p.num(n.key("stall_ms")), stalls: p.num(n.key("stalls"))}
	if c := n.key("first_clause_ms"); c.present && c.v != nil {
		f.firstClauseMs = p.optNum(c)
	}
	list := n.key("sentences")
	for i := 0; i < p.arr(list); i++ {
		s := list.at(i)
		f.sentences = append(f.sentences, spokenSentence{readyMs: p.num(s.key("ready_ms")),
			startMs: p.num(s.key("start_ms")), endMs: p.num(s.key("end_ms"))})
	}
	return f
}
