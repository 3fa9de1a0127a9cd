package stdlib_test

import (
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
)

// TestPromptFirstDifferenceLive: against the real llama-server, the
// shared token count is the cache the server reuses for b right after a,
// and each prompt's token count is what the server evaluates for it.
func TestPromptFirstDifferenceLive(t *testing.T) {
	srv := llamatest.Start(t)
	L := newServerVM(t, srv.URL)
	out := mustEval(t, L, `
		local prompt = require("prompt")
		local a = prompt.messages("Once upon a time there was a little girl named Lily. She liked the park.", "hi")
		local b = prompt.messages("Once upon a time there was a little boy named Tom. She liked the park.", "hi")
		local r = prompt.first_difference(a, b)
		stream({{role = "user", content = "something else entirely"}}, {max_tokens = 4})
		local _, _, ta = stream(a, {max_tokens = 8})
		local _, _, tb = stream(b, {max_tokens = 8})
		local _, _, again = stream(b, {max_tokens = 8})
		local same = prompt.first_difference(b, b)
		local text = prompt.first_difference(r.b_prompt, b)
		return r.tokens, tb.cache_n, r.a_tokens, ta.cache_n + ta.prompt_n, r.b_tokens, tb.cache_n + tb.prompt_n,
			again.cache_n, tostring(same.same and same.tokens == r.b_tokens), tostring(text.same),
			r.a_prompt:sub(1, r.at_byte)`)
	tokens, reused := num(t, out[0]), num(t, out[1])
	if tokens != reused || tokens <= 0 || tokens >= num(t, out[2]) {
		t.Errorf("first_difference found %v shared tokens; the server reused %v for b after a (a has %v)", tokens, reused, out[2])
	}
	if num(t, out[2]) != num(t, out[3]) || num(t, out[4]) != num(t, out[5]) {
		t.Errorf("token counts a %v, b %v; the server evaluated (cache_n + prompt_n) %v and %v", out[2], out[4], out[3], out[5])
	}
	// A fully matching prompt still evaluates one token.
	if num(t, out[6]) != num(t, out[4])-1 || out[7].String() != "true" || out[8].String() != "true" {
		t.Errorf("b again: cache_n %v of %v tokens; first_difference(b, b).same %v; templated text as b %v",
			out[6], out[4], out[7], out[8])
	}
	if common := out[9].String(); len(common) == 0 || common[len(common)-len("little "):] != "little " {
		t.Errorf("the common text ends %q, want it to end before girl/boy", common)
	}
}

func TestMain(m *testing.M) { llamatest.Main(m) }
