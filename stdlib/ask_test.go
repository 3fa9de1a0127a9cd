package stdlib_test

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime"
)

// askFakes replaces stream, kb_docs and io.write: stream plays SCRIPT (an
// array of {t_ms, text}) through on_chunk and records what it was sent;
// io.write collects into WRITTEN.
const askFakes = `
SCRIPT = {{5, "Hello"}, {7, " there."}, {9, " How"}, {12, " are you?"}, {15, " Bye"}}
WRITTEN = {}
SENT_MESSAGES, SENT_OPTS = false, false
io.write = function(...) for _, s in ipairs({...}) do WRITTEN[#WRITTEN + 1] = s end end
function kb_docs() return {{name = "a.md", text = "Doc A.\n"}, {name = "b.md", text = "Doc B.\n"}} end
function stream(messages, opts)
  SENT_MESSAGES, SENT_OPTS = messages, opts
  local out = {}
  for i, c in ipairs(SCRIPT) do
    out[i] = {t_ms = c[1], text = c[2]}
    if opts.on_chunk and opts.on_chunk({t_ms = c[1], text = c[2], index = i}) == false then
      return out, c[1], nil, {ttft_ms = 5, cut = true, closed_at_ms = c[1], done = false, status = 200}
    end
    if FAIL_AT == i then error("stream: POST http://x/v1/chat/completions: the connection broke", 0) end
  end
  return out, 100, {prompt_n = 12, cache_n = 3, predicted_n = #SCRIPT},
    {ttft_ms = 5, done = true, cut = false, finish_reason = "stop", status = 200}
end
`

func askVM(t *testing.T) (run func(code string) string) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	return func(code string) string {
		t.Helper()
		out := mustEval(t, L, `WRITTEN = {} `+code+` return table.concat(WRITTEN)`)
		return out[len(out)-1].String()
	}
}

func TestAskPrintsSentencesWithTimes(t *testing.T) {
	run := askVM(t)
	got := run(`ask = require("ask")
		local chunks, total, timings, info = ask("Q?", {system = "Sys.", docs = 1, cache = false, max_tokens = 5})
		assert(#chunks == 5 and total == 100 and timings.cache_n == 3, "stream's results pass through")
		assert(info.text == "Hello there. How are you? Bye", info.text)
		assert(#info.sentences == 3 and info.sentences[2].text == "How are you?" and info.sentences[2].t_ms == 15)
		assert(info.first_sentence == "Hello there." and info.first_sentence_ms == 9 and info.printed)`)
	want := "Hello there.  [9.0 ms]\nHow are you?  [15.0 ms]\nBye  [15.0 ms]\n" +
		"ttft 5.0 ms | first sentence 9.0 ms | total 100.0 ms | spoken without stalls | tokens 5 | prompt_n 12 | cache_n 3 | finish stop\n"
	if got != want {
		t.Fatalf("printed\n%s\nwant\n%s", got, want)
	}
}

func TestAskSendsMessagesAndOptions(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	out := mustEval(t, L, `
		require("ask")("Q?", {system = "Sys.", docs = 2, cache = false, max_tokens = 5, body = {ignore_eos = true}})
		local keys = {}
		for k in pairs(SENT_OPTS) do keys[#keys + 1] = k end
		table.sort(keys)
		return #SENT_MESSAGES, SENT_MESSAGES[1].role, SENT_MESSAGES[1].content, SENT_MESSAGES[2].content,
			table.concat(keys, ","), SENT_OPTS.cache_prompt, SENT_OPTS.body.ignore_eos`)
	got := []string{}
	for _, v := range out {
		got = append(got, v.String())
	}
	want := []string{"2", "system", "Sys.\n\nDoc A.\n\nDoc B.", "Q?", "body,cache_prompt,max_tokens,on_chunk", "false", "true"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
	// Without a system prompt only the question is sent; docs alone make the system prompt.
	out = mustEval(t, L, `
		local a = require("ask").messages("Q?")
		local b = require("ask").messages("Q?", {docs = 1})
		return #a, a[1].role, #b, b[1].content`)
	if out[0].String() != "1" || out[1].String() != "user" || out[2].String() != "2" || out[3].String() != "Doc A." {
		t.Fatalf("messages: %v", out)
	}
}

func TestAskQuietAndOwnOnChunk(t *testing.T) {
	run := askVM(t)
	got := run(`local seen = 0
		local _, _, _, info = require("ask")("Q?", {quiet = true, on_chunk = function(c)
			seen = seen + 1
			if seen == 2 then return false end
		end})
		assert(seen == 2 and info.cut and not info.printed and info.quiet, "on_chunk returning false cuts")
		assert(info.text == "Hello there.", info.text)
		assert(info.first_sentence == "Hello there." and info.first_sentence_ms == 7, tostring(info.first_sentence_ms))`)
	if got != "" {
		t.Fatalf("quiet printed %q", got)
	}
}

func TestAskFailureEndsTheLineAndRaises(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	msg := evalErr(t, L, `FAIL_AT = 2 require("ask")("Q?")`)
	if !strings.Contains(msg, "the connection broke") {
		t.Fatalf("error %q", msg)
	}
	out := mustEval(t, L, `return table.concat(WRITTEN)`)
	if got := out[0].String(); got != "Hello there.\n" {
		t.Fatalf("printed %q, want the partial line ended", got)
	}
}

func TestAskErrors(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	assertErr(t, L, `require("ask")(5)`, "ask: question must be a string")
	assertErr(t, L, `require("ask")("q", {docs = -1})`, "ask: opts.docs must be a whole number")
	assertErr(t, L, `require("ask")("q", {cache = "no"})`, "ask: opts.cache must be a boolean")
	assertErr(t, L, `require("ask")("q", {cache = true, cache_prompt = false})`, "not both")
	assertErr(t, L, `require("ask").ask("q", 3)`, "ask: opts must be a table")
	// A mistyped option is ask's to name, with its own list and the nearest name.
	assertErr(t, L, `require("ask")("q", {sytem = "x"})`, `unknown option "sytem"`, `did you mean "system"?`,
		"cache, docs, on_chunk, quiet, system, tail")
	assertErr(t, L, `require("ask")("q", {tail = 5})`, "ask: opts.tail must be a string")
	// An error from a module ask calls names the user's line, not ask's.
	assertErr(t, L, `require("ask")("q", {docs = 99})`, "prompt.build: asked for 99 docs but only 2 exist")
}

// TestAskKnowsStreamsOptions holds ask's list of stream() options to the
// host's own: ask takes every option stream() takes. The list is not a
// field of the module (the prompt would offer it after "ask."). Fails
// before this change: ask.STREAM_OPTIONS was one.
func TestAskKnowsStreamsOptions(t *testing.T) {
	L := newVM(t)
	for _, name := range runtime.StreamOptionNames() {
		mustEval(t, L, `return require("ask").messages("q", {`+name+` = function() end})`)
	}
	out := mustEval(t, L, `return require("ask").STREAM_OPTIONS`)
	if out[0].Type() != lua.LTNil {
		t.Errorf("ask.STREAM_OPTIONS is a field of the module")
	}
}

// TestAskTailGoesLast: tail ends the system prompt, after the docs.
func TestAskTailGoesLast(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	out := mustEval(t, L, `return require("ask").messages("Q?", {system = "Sys.", docs = 1, tail = "Current time: 14:05."})[1].content`)
	if got := out[0].String(); got != "Sys.\n\nDoc A.\n\nCurrent time: 14:05." {
		t.Errorf("system prompt %q", got)
	}
}

// TestAskFlush sends one tiny uncached request.
func TestAskFlush(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	out := mustEval(t, L, `require("ask").flush() return SENT_MESSAGES, SENT_OPTS.max_tokens, SENT_OPTS.cache_prompt`)
	if out[0].String() != "." || out[1].String() != "1" || out[2].String() != "false" {
		t.Errorf("flush sent %v", out)
	}
	assertErr(t, L, `require("ask").flush({sever = "http://x"})`, `did you mean "server"?`)
}

// TestAskSummaryShowsStalls: a second sentence that comes after the first
// was spoken makes the speaker wait, and the summary says how long.
func TestAskSummaryShowsStalls(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `return require("ask").summary({{t_ms = 10, text = "Hi there. "}, {t_ms = 1000, text = "Bye."}}, 1001, nil,
		{ttft_ms = 10, done = true}, {text = false})`)
	// "Hi there." is spoken from 10 ms for 9/15 s, until 610 ms; "Bye." is
	// ready at 1000 ms.
	if got := out[0].String(); !strings.Contains(got, "spoken with 1 stall (390.0 ms)") {
		t.Errorf("summary %q", got)
	}
}

func TestAskSummary(t *testing.T) {
	L := newVM(t)
	out := mustEval(t, L, `
		local ask = require("ask")
		local chunks = {{t_ms = 4, text = " Once upon"}, {t_ms = 6, text = " a time."}, {t_ms = 9, text = " The end"}}
		local full = ask.summary(chunks, 20, {predicted_n = 3, prompt_n = 9, cache_n = 0},
			{ttft_ms = 4, done = true, cut = false, finish_reason = "length", status = 200})
		local cut = ask.summary(chunks, 9.5, nil,
			{ttft_ms = 4, done = false, cut = true, closed_at_ms = 9.5, error = "POST u: canceled", status = 200},
			{text = false})
		local long = ask.summary({{t_ms = 1, text = string.rep("é", 200)}}, 2, nil, {ttft_ms = 1, done = true}, {max_text = 11})
		return full, cut, long`)
	wantFull := `answer: " Once upon a time. The end"` + "\n" +
		`first sentence at 9.0 ms: "Once upon a time."` + "\n" +
		`ttft 4.0 ms | first sentence 9.0 ms | total 20.0 ms | spoken without stalls | tokens 3 | prompt_n 9 | cache_n 0 | finish length`
	if got := out[0].String(); got != wantFull {
		t.Errorf("summary\n%s\nwant\n%s", got, wantFull)
	}
	wantCut := "ttft 4.0 ms | first sentence 9.0 ms | total 9.5 ms | spoken without stalls | chunks 3 | cut at 9.5 ms\nerror: POST u: canceled"
	if got := out[1].String(); got != wantCut {
		t.Errorf("cut summary\n%s\nwant\n%s", got, wantCut)
	}
	if got := out[2].String(); !strings.HasPrefix(got, `answer: "ééééé" (+390 more bytes)`) {
		t.Errorf("long text: %s", got)
	}
}

func TestAskLeaksNoGlobals(t *testing.T) {
	L := newVM(t)
	mustEval(t, L, askFakes)
	out := mustEval(t, L, `
		local before = {}
		for k in pairs(_G) do before[k] = true end
		local m = require("ask")
		m("q", {quiet = true})
		local leaked = {}
		for k in pairs(_G) do if not before[k] then leaked[#leaked + 1] = tostring(k) end end
		return type(m), table.concat(leaked, ",")`)
	if out[0].String() != "table" || out[1].String() != "" {
		t.Fatalf("type %s, leaked %q", out[0], out[1])
	}
}
