package trace

import (
	"bytes"
	"strconv"
)

// readMooncake reads a Mooncake trace: each non-blank line a request,
// its own call of one turn, whose id is the line's number. Keys other
// than the four it reads are let be (traces carry more).
func readMooncake(data []byte, path string) ([]Call, int, error) {
	var calls []Call
	prevLine := 0
	for i, l := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if l = bytes.TrimSpace(l); len(l) == 0 {
			continue
		}
		r, err := jsonRecord(l, path, n)
		if err != nil {
			return nil, 0, err
		}
		const every = "missing (every line of a Mooncake trace has it)"
		ts, _, err := r.ms("timestamp", every)
		if err != nil {
			return nil, 0, err
		}
		if len(calls) > 0 && ts < calls[len(calls)-1].StartMs {
			return nil, 0, r.err("timestamp", "%s ms is before line %d's %s ms: times out of order",
				fmtMs(ts), prevLine, fmtMs(calls[len(calls)-1].StartMs))
		}
		in, _, err := r.tokens("input_length", every)
		if err != nil {
			return nil, 0, err
		}
		out, _, err := r.tokens("output_length", every)
		if err != nil {
			return nil, 0, err
		}
		ids, err := r.hashIDs("hash_ids")
		if err != nil {
			return nil, 0, err
		}
		calls = append(calls, Call{ID: strconv.Itoa(n), StartMs: ts,
			Turns: []Turn{{Line: n, InputTokens: in, OutputTokens: out, HashIDs: ids}}})
		prevLine = n
	}
	return calls, len(calls), nil
}
