package stdlib_test

import (
	"fmt"
	"strconv"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/load"
)

// TestCallsFirstTurnIsColdLive: against the real llama-server, callers one
// after another on one slot: a call whose first line (a name and one of
// the default lines) differs from the previous caller's gets only the
// shared system prompt from the cache, not the previous caller's whole
// prompt (before, every caller said the same line, and turn 1 was served
// from the cache: prompt_n 1).
func TestCallsFirstTurnIsColdLive(t *testing.T) {
	const calls = 6
	srv := llamatest.Start(t)
	L := newServerVM(t, srv.URL)
	out := mustEval(t, L, fmt.Sprintf(`
		local calls = require("calls")
		local turns = calls.run({calls = %d, turns = 1, concurrency = 1, seed = 7, think_ms = 0, opts = {max_tokens = 4}})
		local out = {}
		for _, r in ipairs(turns) do
			assert(r.error == nil, r.error)
			out[2 * r.tags.call - 1] = r.timings.prompt_n
			out[2 * r.tags.call] = r.timings.cache_n
		end
		return unpack(out)`, calls))
	// What each caller said, by the plan's draw, as calls.lua picks it.
	plan := load.Plan{Seed: 7}
	said := make([]string, calls+1)
	for c := 1; c <= calls; c++ {
		u := strconv.FormatFloat(plan.CallDraw(c), 'g', -1, 64)
		v := mustEval(t, L, `local calls = require("calls")
			return calls.name_of(`+u+`, #calls.DEFAULT_LINES) .. "/" .. calls.first_line(`+u+`, #calls.DEFAULT_LINES)`)
		said[c] = v[0].String()
	}
	cold := 0
	for c := 2; c <= calls; c++ {
		prevTotal := num(t, out[2*(c-2)]) + num(t, out[2*(c-2)+1])
		prompt, cache := num(t, out[2*(c-1)]), num(t, out[2*(c-1)+1])
		if said[c] == said[c-1] {
			continue
		}
		cold++
		if cache >= prevTotal-1 || prompt <= 1 {
			t.Errorf("call %d (%s after %s): prompt_n %v, cache_n %v; the previous caller's prompt was %v tokens",
				c, said[c], said[c-1], prompt, cache, prevTotal)
		}
	}
	t.Logf("callers said %v; %d of %d first turns after the first were cold", said[1:], cold, calls-1)
	if cold == 0 {
		t.Errorf("with seed 7 every caller said what the one before said")
	}
}
