package stdlib_test

import (
	"os"
	"regexp"
	"testing"
)

// TestAskABComparesTwoVariants: ask.ab asks the question with each
// variant's options, quietly, in ABBA order, flushes the cache before
// every run, and returns ab()'s result.
func TestAskABComparesTwoVariants(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	mustEval(t, L, `
		local ask = require("ask")
		local sent, real = {}, stream
		stream = function(messages, opts)
			if messages == "." then
				sent[#sent + 1] = "flush"
				return {}, 1, nil, {done = true, cut = false, status = 200}
			end
			sent[#sent + 1] = (messages[1].role == "system") and "B" or "A"
			return real(messages, opts)
		end
		local r = ask.ab("Q?", {docs = 0}, {docs = 1}, {runs = 2, quiet = true})
		assert(table.concat(sent, " ") == "flush A flush B flush B flush A", table.concat(sent, " "))
		assert(table.concat(r.order, " ") == "A B B A", "order")
		assert(#WRITTEN == 0, "nothing printed: " .. table.concat(WRITTEN))
		local f = r.figures.ttft_ms
		assert(f.a.n == 2 and f.b.n == 2 and f.verdict == "too few samples", tostring(f.verdict))
		assert(r.figures.first_sentence_ms.a.p50 == 9, "ask's first sentence")
		assert(tostring(r):find("ttft_ms"), "prints as the verdict table")
		sent = {}
		ask.ab("Q?", {docs = 0}, {docs = 1}, {runs = 1, quiet = true, flush = false})
		assert(table.concat(sent, " ") == "A B", "flush = false: " .. table.concat(sent, " "))
	`)
	assertErr(t, L, `require("ask").ab("Q?", {docs = 0}, {dcos = 1})`, `unknown option "dcos"`, `did you mean "docs"`)
	assertErr(t, L, `require("ask").ab(42)`, "ask.ab: question must be a string")
}

// TestAskABDefaultRunsDocumented: the runs ask.ab makes of each variant
// without ab_opts.runs are the default stdlib/README.md and
// docs/lua-api.md give. Fails before this change: the README said 4, ab
// makes 6.
func TestAskABDefaultRunsDocumented(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	out := mustEval(t, L, `
		local ask = require("ask")
		local a, real = 0, stream
		stream = function(messages, opts)
			if messages == "." then
				return {}, 1, nil, {done = true, cut = false, status = 200}
			end
			if messages[1].role ~= "system" then a = a + 1 end
			return real(messages, opts)
		end
		ask.ab("Q?", {docs = 0}, {docs = 1}, {quiet = true})
		return a`)
	runs := out[0].String()
	for f, re := range map[string]string{
		"README.md":          "`ab_opts.runs` times each \\(default (\\d+)\\)",
		"../docs/lua-api.md": "`opts.runs` times each \\(default (\\d+)\\)",
	} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(re).FindStringSubmatch(string(data))
		if m == nil || m[1] != runs {
			t.Errorf("%s: default runs %v, ask.ab makes %s", f, m, runs)
		}
	}
}
