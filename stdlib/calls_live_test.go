package stdlib_test

import (
	"math"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/load"
)

// TestCallsFirstTurnIsColdLive: against the real llama-server, callers one
// after another on one slot: a call whose first line differs from the
// previous caller's gets only the shared system prompt from the cache, not
// the previous caller's whole prompt (before, every caller said the same
// line, and turn 1 was served from the cache: prompt_n 1).
func TestCallsFirstTurnIsColdLive(t *testing.T) {
	srv := llamatest.Start(t)
	L := newServerVM(t, srv.URL)
	out := mustEval(t, L, `
		local calls = require("calls")
		local turns = calls.run({calls = 4, turns = 1, concurrency = 1, seed = 7, think_ms = 0, opts = {max_tokens = 4}})
		local by = {}
		for _, r in ipairs(turns) do
			assert(r.error == nil, r.error)
			by[r.tags.call] = r.timings
		end
		return by[1].prompt_n, by[1].cache_n, by[2].prompt_n, by[2].cache_n, by[3].prompt_n, by[3].cache_n,
			by[4].prompt_n, by[4].cache_n, #calls.DEFAULT_LINES`)
	nLines := int(num(t, out[8]))
	plan := load.Plan{Seed: 7}
	line := func(call int) int { return min(int(math.Floor(plan.CallDraw(call)*float64(nLines))), nLines-1) }
	differ := 0
	for c := 2; c <= 4; c++ {
		prevTotal := num(t, out[2*(c-2)]) + num(t, out[2*(c-2)+1])
		prompt, cache := num(t, out[2*(c-1)]), num(t, out[2*(c-1)+1])
		if line(c) == line(c-1) {
			continue
		}
		differ++
		if cache >= prevTotal-1 || prompt <= 1 {
			t.Errorf("call %d (line %d after line %d): prompt_n %v, cache_n %v; the previous caller's prompt was %v tokens",
				c, line(c)+1, line(c-1)+1, prompt, cache, prevTotal)
		}
	}
	if differ == 0 {
		t.Errorf("with seed 7 every caller said the line of the one before")
	}
}
