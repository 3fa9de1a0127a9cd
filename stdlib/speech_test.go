package stdlib_test

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// pacing is one speech.pacing result: the totals and, per sentence,
// "text ready start end" with times rounded to 0.01 ms.
type pacing struct {
	startMs, endMs, stallMs, speakMs, firstSentenceMs, firstClauseMs float64
	stalls                                                           int
	sentences                                                        []string
}

func runPacing(t *testing.T, L *lua.LState, chunks, opts string) pacing {
	t.Helper()
	out := mustEval(t, L, `local r = require("speech").pacing(`+chunks+`, `+opts+`)
		local s = {}
		for i, x in ipairs(r.sentences) do
			s[i] = string.format("%s|%d|%.2f|%.2f|%.2f", x.text, x.chars, x.ready_ms, x.start_ms, x.end_ms)
		end
		return r.start_ms or -1, r.end_ms or -1, r.stall_ms, r.stalls, r.speak_ms,
			r.first_sentence_ms or -1, r.first_clause_ms or -1, table.concat(s, "\n")`)
	p := pacing{startMs: num(t, out[0]), endMs: num(t, out[1]), stallMs: num(t, out[2]), stalls: int(num(t, out[3])),
		speakMs: num(t, out[4]), firstSentenceMs: num(t, out[5]), firstClauseMs: num(t, out[6])}
	if s := out[7].String(); s != "" {
		p.sentences = strings.Split(s, "\n")
	}
	return p
}

func TestSpeechPacing(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		name, chunks, opts string
		want               pacing
	}{
		{"no stall: the text keeps ahead of the voice",
			`{{t_ms=100, text="Please come in. "}, {t_ms=200, text="We open at nine."}, {t_ms=300, text=" Bye"}}`,
			`{chars_per_s = 10}`,
			pacing{startMs: 100, endMs: 3500, speakMs: 3400, firstSentenceMs: 100, firstClauseMs: 100, sentences: []string{
				"Please come in.|15|100.00|100.00|1600.00",
				"We open at nine.|16|300.00|1600.00|3200.00",
				"Bye|3|300.00|3200.00|3500.00"}}},
		{"one stall: the second sentence comes late",
			`{{t_ms=0, text="Hi. "}, {t_ms=1000, text="Come at nine. "}, {t_ms=1500, text="See you."}}`,
			`{chars_per_s = 10}`,
			pacing{startMs: 0, endMs: 3100, stallMs: 700, stalls: 1, speakMs: 2400, firstSentenceMs: 0, firstClauseMs: 0,
				sentences: []string{"Hi.|3|0.00|0.00|300.00", "Come at nine.|13|1000.00|1000.00|2300.00",
					"See you.|8|1500.00|2300.00|3100.00"}}},
		{"tts_ms delays every sentence's audio",
			`{{t_ms=0, text="Hi. "}, {t_ms=1000, text="Come at nine. "}, {t_ms=1500, text="See you."}}`,
			`{chars_per_s = 10, tts_ms = 250}`,
			pacing{startMs: 250, endMs: 3350, stallMs: 700, stalls: 1, speakMs: 2400, firstSentenceMs: 0, firstClauseMs: 0,
				sentences: []string{"Hi.|3|0.00|250.00|550.00", "Come at nine.|13|1000.00|1250.00|2550.00",
					"See you.|8|1500.00|2550.00|3350.00"}}},
		{"a single sentence, ready at the last chunk",
			`{{t_ms=50, text="Yes"}, {t_ms=80, text=" we do."}}`, `{chars_per_s = 10}`,
			pacing{startMs: 80, endMs: 1080, speakMs: 1000, firstSentenceMs: 80, firstClauseMs: 80,
				sentences: []string{"Yes we do.|10|80.00|80.00|1080.00"}}},
		{"no sentence boundary at all, default rate",
			`{{10, "we open at nine"}, {20, " and close"}, {30, " late"}}`, `nil`,
			pacing{startMs: 30, endMs: 30 + 2000, speakMs: 2000, firstSentenceMs: 30, firstClauseMs: 30,
				sentences: []string{"we open at nine and close late|30|30.00|30.00|2030.00"}}},
		{"Chinese: characters, not bytes, set the speaking time",
			`{{t_ms=100, text="请带上身份证。"}, {t_ms=150, text="还有保险卡。"}, {t_ms=2000, text="谢谢。"}}`,
			`{chars_per_s = 5}`,
			pacing{startMs: 150, endMs: 3800, stallMs: 450, stalls: 1, speakMs: 3200, firstSentenceMs: 150, firstClauseMs: 150,
				sentences: []string{"请带上身份证。|7|150.00|150.00|1550.00", "还有保险卡。|6|2000.00|2000.00|3200.00",
					"谢谢。|3|2000.00|3200.00|3800.00"}}},
		{"a clause before the first sentence",
			`{{t_ms=10, text="请带上您的身份证、"}, {t_ms=20, text="保险卡。"}, {t_ms=30, text="好"}}`,
			`{chars_per_s = 5, min_clause_chars = 8}`,
			pacing{startMs: 30, endMs: 30 + 2600 + 200, speakMs: 2800, firstSentenceMs: 30, firstClauseMs: 10,
				sentences: []string{"请带上您的身份证、保险卡。|13|30.00|30.00|2630.00", "好|1|30.00|2630.00|2830.00"}}},
		{"no text", `{}`, `nil`, pacing{startMs: -1, endMs: -1, firstSentenceMs: -1, firstClauseMs: -1}},
		{"only white space", `{{t_ms=5, text="  "}}`, `{}`, pacing{startMs: -1, endMs: -1, firstSentenceMs: -1, firstClauseMs: -1}},
	}
	for _, c := range cases {
		got := runPacing(t, L, c.chunks, c.opts)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

// TestSpeechPacingAgreesWithSentence: pacing's first sentence is the one
// sentence.first_time finds, at the same time, and its sentences are
// sentence.split's.
func TestSpeechPacingAgreesWithSentence(t *testing.T) {
	L := newVM(t)
	for _, chunks := range []string{
		`{{t_ms=10, text="It opens at 8 a"}, {t_ms=20, text=".m. on"}, {t_ms=30, text=" Saturday."}, {t_ms=40, text=" Bring ID."}}`,
		`{{t_ms=5, text="We open at 8 a.m."}, {t_ms=6, text=" "}, {t_ms=9, text="Please"}, {t_ms=12, text=" call."}}`,
		`{{t_ms=1, text="他说：“好的。"}, {t_ms=2, text="”"}, {t_ms=3, text="然后走了。"}, {t_ms=4, text="再见"}}`,
		`{{t_ms=1, text="병원은 8시에"}, {t_ms=2, text=" 엽니다. 주차는"}, {t_ms=3, text=" 무료입니다."}}`,
	} {
		out := mustEval(t, L, `local sentence, speech = require("sentence"), require("speech")
			local chunks = `+chunks+`
			local r = speech.pacing(chunks)
			local s, t = sentence.first_time(chunks)
			local texts, all = {}, {}
			for i, x in ipairs(r.sentences) do texts[i] = x.text end
			for i, c in ipairs(chunks) do all[i] = c.text end
			return r.sentences[1].text == s, r.first_sentence_ms == t,
				table.concat(texts, "|") == table.concat(sentence.split(table.concat(all)), "|")`)
		for i, what := range []string{"first sentence", "its time", "sentences"} {
			if out[i] != lua.LTrue {
				t.Errorf("%s: pacing's %s differs from the sentence module's", chunks, what)
			}
		}
	}
}

func TestSpeechFirstClauseMs(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		args   string
		tMs    float64
		clause string
	}{
		// The comma waits for the white space after it.
		{`{{t_ms=10, text="Please bring your photo ID,"}, {t_ms=20, text=" your card."}, {t_ms=30, text=" Bye"}}`, 20, "Please bring your photo ID,"},
		{`{{t_ms=10, text="Please bring your photo ID,"}, {t_ms=20, text=" your card."}, {t_ms=30, text=" Bye"}}, {min_chars = 50}`,
			30, "Please bring your photo ID, your card."},
		{`{{t_ms=10, text="请带上您的身份证、"}, {t_ms=20, text="保险卡和药物清单，"}, {t_ms=30, text="我们八点开门。好"}}, {min_chars = 8}`,
			10, "请带上您的身份证、"},
		{`{{t_ms=10, text="请带上您的身份证、"}, {t_ms=20, text="保险卡和药物清单，"}, {t_ms=30, text="我们八点开门。好"}}, {min_chars = 10}`,
			20, "请带上您的身份证、保险卡和药物清单，"},
		{`{{t_ms=10, text="请带上您的身份证、"}, {t_ms=20, text="保险卡和药物清单，"}, {t_ms=30, text="我们八点开门。好"}}`,
			30, "请带上您的身份证、保险卡和药物清单，我们八点开门。"},
		{`{{1, "no mark at all"}, {2, " here"}}`, 2, "no mark at all here"},
	}
	for _, c := range cases {
		out := mustEval(t, L, `return require("speech").first_clause_ms(`+c.args+`)`)
		if len(out) != 2 || num(t, out[0]) != c.tMs || out[1].String() != c.clause {
			t.Errorf("first_clause_ms(%s) = %v, want %v, %q", c.args, out, c.tMs, c.clause)
		}
	}
	for _, chunks := range []string{`{}`, `{{t_ms=1, text="  "}}`} {
		out := mustEval(t, L, `return require("speech").first_clause_ms(`+chunks+`)`)
		if len(out) != 1 || out[0] != lua.LNil {
			t.Errorf("first_clause_ms(%s) = %v, want nil", chunks, out)
		}
	}
}

func TestSpeechErrors(t *testing.T) {
	L := newVM(t)
	cases := []struct {
		code string
		want []string
	}{
		{`require("speech").pacing("text")`, []string{"speech.pacing", "chunks must be an array", "string"}},
		{`require("speech").pacing({"a"})`, []string{"chunks[1] is a string"}},
		{`require("speech").pacing({{t_ms=1, text="a"}, {t_ms=2}})`, []string{"chunks[2]", "t_ms", "text", "nil"}},
		{`require("speech").pacing({{t_ms=0/0, text="a"}})`, []string{"chunks[1]", "finite number t_ms"}},
		{`require("speech").pacing({{t_ms=5, text="a"}, {t_ms=4, text="b"}})`, []string{"chunks[2].t_ms is 4", "arrival order"}},
		{`require("speech").pacing({}, {chars_per_s = 0})`, []string{"opts.chars_per_s", "> 0", "0"}},
		{`require("speech").pacing({}, {chars_per_s = "fast"})`, []string{"opts.chars_per_s", "fast"}},
		{`require("speech").pacing({}, {tts_ms = -5})`, []string{"opts.tts_ms", ">= 0", "-5"}},
		{`require("speech").pacing({}, {chars_per_sec = 12})`, []string{"unknown option chars_per_sec", "chars_per_s"}},
		{`require("speech").pacing({}, {min_clause_chars = 1.5})`, []string{"speech.pacing", "whole number", "1.5"}},
		{`require("speech").pacing({}, 15)`, []string{"opts must be a table"}},
		{`require("speech").first_clause_ms(nil)`, []string{"speech.first_clause_ms", "chunks must be an array", "nil"}},
		{`require("speech").first_clause_ms({}, {min_chars = -2})`, []string{"speech.first_clause_ms", "-2"}},
		{`require("speech").first_clause_ms({}, {min = 2})`, []string{"unknown option min", "min_clause_chars"}},
		{`require("speech").first_clause_ms({}, {min_clause_chars = -2})`, []string{"speech.first_clause_ms", "-2"}},
		{`require("speech").first_clause_ms({}, "x")`, []string{"opts must be a table"}},
	}
	for _, c := range cases {
		assertErr(t, L, c.code, c.want...)
	}
}
