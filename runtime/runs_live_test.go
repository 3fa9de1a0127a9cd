package runtime

import (
	"strings"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
)

// TestABAskRealServer: against the real llama-server, ab() of two ask
// variants (no KB docs, four KB docs), 2 runs each, gives a result of the
// documented shape with a verdict that is one of the four words; runs()
// of stream() pools the real figures.
func TestABAskRealServer(t *testing.T) {
	srv := llamatest.Start(t)
	vm, out := testVM(t, Config{Server: srv.URL})
	err := vm.RunString(`
		local ask = require("ask")
		local q = "Do you open on Saturday?"
		local r = ab(function() return ask(q, {docs = 0, quiet = true, max_tokens = 16}) end,
			function() return ask(q, {docs = 4, quiet = true, max_tokens = 16}) end, {runs = 2, flush = true})
		assert(table.concat(r.order, " ") == "A B B A" and r.seed == 21 and r.runs == 2 and r.drift_covered, "result")
		local words = {faster = true, slower = true, ["no difference detected"] = true, ["too few samples"] = true}
		for _, name in ipairs({"ttft_ms", "first_sentence_ms", "total_ms"}) do
			local f = r.figures[name]
			if name ~= "first_sentence_ms" or f then
				assert(f and f.a.n == 2 and f.b.n == 2 and f.a.runs == 2, name .. ": two runs of one request each")
				assert(words[f.verdict], name .. ": verdict " .. tostring(f.verdict))
				assert(f.ratio > 0 and f.a.p50 > 0 and f.b.p50 > 0, name .. ": ratio")
			end
		end
		assert(r.figures.ttft_ms.a.p50 <= r.figures.total_ms.a.p50, "A's ttft within its total")
		print(r)
		local s = ask.ab(q, {docs = 0, max_tokens = 16}, {docs = 4, max_tokens = 16}, {runs = 1, quiet = true})
		assert(s.warning and words[s.figures.ttft_ms.verdict], "ask.ab with one run")
		local f = runs(3, function() return stream(q, {max_tokens = 16}) end)
		assert(f.ttft_ms.n == 3 and f.total_ms.n == 3 and f.ttft_ms.failed == 0, "runs of stream()")
		assert(f.ttft_ms.p50 <= f.total_ms.p50 and f.ttft_ms.mean <= f.total_ms.mean, "ttft within total")
		print(f)
	`, "ab_live.lua")
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"ab: run 4 of 4: A", "ab: B/A of the median, 2 runs of each", "ttft_ms", "runs: 3 runs"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q", w)
		}
	}
}
