package sentence_test

import (
	"strings"
	"testing"

	"ttftlab/internal/sentence"
)

// none is a case's "no sentence yet" (Lua's nil).
const none = "\x00none"

type firstCase struct {
	text  string
	final bool
	want  string // the sentence (a prefix of text), or none
}

// checkFirst holds First to each case.
func checkFirst(t *testing.T, cases []firstCase) {
	t.Helper()
	for _, c := range cases {
		end, ok := sentence.First(c.text, c.final)
		got := none
		if ok {
			got = c.text[:end]
		}
		if got != c.want {
			t.Errorf("First(%q, %v) = %q, want %q", c.text, c.final, got, c.want)
		}
	}
}

// TestFirstRules: the rules as stdlib/README.md states them, in English.
func TestFirstRules(t *testing.T) {
	checkFirst(t, []firstCase{
		{"Hello there. How are you?", false, "Hello there."},
		{"Hello there", false, none},
		{"Hello there", true, "Hello there"},
		{"Hello there.  ", false, "Hello there."},
		{"Hello there.", false, none},
		{"Hello there.", true, "Hello there."},
		{"Hello there. \n", true, "Hello there."},
		{"  Hi. There", false, "  Hi."},
		{"Hi.\nThere", false, "Hi."},
		{"Hi.\tThere", false, "Hi."},
		{"Hi.\vThere", false, "Hi."},
		{"Hi.\fThere", false, "Hi."},
		{"Hi.\rThere", false, "Hi."},
		{"", true, none},
		{" \n ", true, none},
		{"", false, none},
		// White space is ASCII's: a no-break or ideographic space is not.
		{"Hi.\u00a0There", true, "Hi.\u00a0There"},
		{"Hi.\u2003There", true, "Hi.\u2003There"},
		// Numbers: no space after the dot.
		{"It costs 3.5 dollars. Next", false, "It costs 3.5 dollars."},
		{"Version 2.0.1 is out", true, "Version 2.0.1 is out"},
		{"It costs 3.", false, none},
		{"Step 3. Next step", false, "Step 3."},
		// a.m. / p.m. need the next word.
		{"It opens at 8 a", false, none},
		{"It opens at 8 a.m", false, none},
		{"It opens at 8 a.m.", false, none},
		{"It opens at 8 a.m. ", false, none},
		{"It opens at 8 a.m.  \n", false, none},
		{"It opens at 8 a.m. ", true, "It opens at 8 a.m."},
		{"It opens at 8 a.m. o", false, none},
		{"It opens at 8 a.m. on Saturday. We", false, "It opens at 8 a.m. on Saturday."},
		{"We open at 8 a.m. Please call.", false, "We open at 8 a.m."},
		{"We open at 8:30 A.M. Please call.", false, "We open at 8:30 A.M."},
		{"Open at 8 a.m. 5 days a week. Yes", false, "Open at 8 a.m. 5 days a week."},
		{"From 8:30 a.m. to 12:30 p.m. on Saturday. Bring ID.", false, "From 8:30 a.m. to 12:30 p.m. on Saturday."},
		{"Closes at 5 p.m. (Call first.) Ok", false, "Closes at 5 p.m."},
		{"Closes at 5 p.m., so hurry. Ok", false, "Closes at 5 p.m., so hurry."},
		{"At 8 a.m. we left. So", false, "At 8 a.m. we left."},
		{"At 8 a.m. 9 of us. So", false, "At 8 a.m. 9 of us."},
		{"At 8 a.m. We left", false, "At 8 a.m."},
		// Titles and other abbreviations that never end a sentence.
		{"Ask Dr. Smith about it. Then", false, "Ask Dr. Smith about it."},
		{"Dr. Smith arrived. He sat.", false, "Dr. Smith arrived."},
		{"Ask Dr. ", false, none},
		{"Ask Dr. ", true, "Ask Dr."},
		{"Mr. and Mrs. Lee came. ", false, "Mr. and Mrs. Lee came."},
		{"Mr. Big is here", true, "Mr. Big is here"},
		{"Ms. Park and Prof. Ode left. x", false, "Ms. Park and Prof. Ode left."},
		{"We are on Maple St. Parking is behind. x", false, "We are on Maple St. Parking is behind."},
		{"Cats vs. Dogs is on. x", false, "Cats vs. Dogs is on."},
		{"Bring ID, e.g. Passport or card. Then", false, "Bring ID, e.g. Passport or card."},
		{"One form, i.e. The blue one. x", false, "One form, i.e. The blue one."},
		{"(E.g. Tuesday) works. x", false, "(E.g. Tuesday) works."},
		{"Is it e.g., a test? Yes", false, "Is it e.g., a test?"},
		{"e.g., this. Then", false, "e.g., this."},
		// etc. continues only before lowercase.
		{"Pens, paper, etc. and more. X", false, "Pens, paper, etc. and more."},
		{"Pens, paper, etc. Then more.", false, "Pens, paper, etc."},
		{"Pens, paper, etc. 5 more. x", false, "Pens, paper, etc."},
		{"Pens, etc. ", false, none},
		{"Pens, etc. ", true, "Pens, etc."},
		// No. continues only before a digit.
		{"Room No. 5 is free. Next", false, "Room No. 5 is free."},
		{"The answer is No. Then we left.", false, "The answer is No."},
		{"Room No. ", false, none},
		// Ellipsis ends only before a capitalised word.
		{"Wait... what? Yes", false, "Wait... what?"},
		{"Wait... Then it came. x", false, "Wait..."},
		{"Wait.. Then it came. x", false, "Wait.."},
		{"Wait.. then go. X", false, "Wait.. then go."},
		{"Wait... ", false, none},
		{"Wait... ", true, "Wait..."},
		{"Wait\u2026 Then", false, "Wait\u2026"},
		{"Wait\u2026 then go. X", false, "Wait\u2026 then go."},
		{"Wait\u2026", false, none},
		{"Wait\u2026 (What", false, "Wait\u2026"},
		{"Wait. . . what. X", false, "Wait."},
		{"Caf\u00e9 open. x", false, "Caf\u00e9 open."},
		// ! and ? always end before white space; mixed with dots too.
		{"Really?! Yes.", false, "Really?!"},
		{"Really?! yes", false, "Really?!"},
		{"Stop! Now", false, "Stop!"},
		{"Stop.! now", false, "Stop.!"},
		{"Stop\u2026! now", false, "Stop\u2026!"},
		{"Stop!", false, none},
		{"Why?Because. x", false, "Why?Because."},
		// Closing quotes and brackets belong to the sentence.
		{`He said "Stop." Then left.`, false, `He said "Stop."`},
		{`He said "Stop.`, false, none},
		{`He said "Stop.")`, false, none},
		{`He said "Stop.") x`, false, `He said "Stop.")`},
		{"(See the desk.) Then", false, "(See the desk.)"},
		{"She said \u201cyes.\u201d Then", false, "She said \u201cyes.\u201d"},
		{"It's \u2018done.\u2019 Then", false, "It's \u2018done.\u2019"},
		// Opening quotes before the next word are skipped.
		{`At 8 a.m. "we" left. X`, false, `At 8 a.m. "we" left.`},
		{`At 8 a.m. "We left`, false, "At 8 a.m."},
		{"At 8 a.m. \u201c\u300cwe left. X", false, "At 8 a.m. \u201c\u300cwe left."},
		{`At 8 a.m. "`, false, none},
	})
}

// TestFirstCJK: full-width stops end a sentence by themselves, closers
// after them belong to it, Korean keeps the English rules.
func TestFirstCJK(t *testing.T) {
	checkFirst(t, []firstCase{
		// Chinese.
		{"请带上身份证。还有保险卡。", false, "请带上身份证。"},
		{"请带上身份证。", false, none}, // a closer could still follow
		{"请带上身份证。", true, "请带上身份证。"},
		{"请带上身份证", true, "请带上身份证"},
		{"您今天来吗？我们八点开门。", false, "您今天来吗？"},
		{"太好了！明天见。", false, "太好了！"},
		{"真的吗？！好。", false, "真的吗？！"},
		{"他说：“好的。”然后走了。", false, "他说：“好的。”"},
		{"（请早到。）谢谢", false, "（请早到。）"},
		{"停车每小时3.5元。请", false, "停车每小时3.5元。"},
		{"停车每小时3.5元", false, none},
		{"你好!我是前台。", false, "你好!"}, // a half-width mark before CJK text
		{"你好。我是", false, "你好。"},
		{"「你好。」我", false, "「你好。」"},
		{"等等……然后呢。好", false, "等等……然后呢。"}, // CJK counts as lowercase after an ellipsis
		{"等等…… Then", false, "等等……"},
		{"  请进。好", false, "  请进。"},
		{"好。 x", false, "好。"},
		{"OK.。x", false, "OK.。"},
		{"OK!！x", false, "OK!！"},
		// A full stop ends the sentence before any character, not only
		// white space or CJK.
		{"好。x", false, "好。"},
		// Japanese.
		{"明日は休みです。月曜日に来てください。", false, "明日は休みです。"},
		{"「はい。」と言った。", false, "「はい。」"},
		{"『本当？』彼は", false, "『本当？』"},
		{"受付は８時からです｡お待ちください", false, "受付は８時からです｡"},
		{"午前8時30分に開きます。", false, none},
		{"ｱｲ. ｳｴ", false, "ｱｲ."},
		// Korean: ". " as in English.
		{"병원은 8시에 문을 엽니다. 신분증을 가져오세요.", false, "병원은 8시에 문을 엽니다."},
		{"병원은 8시에 엽니다. 주차는", false, "병원은 8시에 엽니다."},
		{"주차는 시간당 3.5달러입니다. 네", false, "주차는 시간당 3.5달러입니다."},
		{"오전 8시 a.m. 에 엽니다. 네", false, "오전 8시 a.m. 에 엽니다."},
		{"오늘 오시나요? 네.", false, "오늘 오시나요?"},
		{"예약하셨나요?", false, none},
		{"신분증을 가져오세요", true, "신분증을 가져오세요"},
		// After an abbreviation, CJK text is lowercase: it goes on.
		{"At 8 a.m. 我们走了. X", false, "At 8 a.m. 我们走了."},
		{"At 8 a.m.我们", false, none},
		{"At 8 a.m.我们", true, "At 8 a.m.我们"},
		{"Dr.你好. X", false, "Dr.你好."},
		{"Hi!\u0410", true, "Hi!\u0410"}, // Cyrillic is not CJK
	})
	// The CJK ranges, at their edges: after '!' a CJK character ends the
	// sentence as white space would.
	for _, r := range []struct {
		lo, hi rune
	}{{0x3000, 0x30FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xAC00, 0xD7AF},
		{0xF900, 0xFAFF}, {0xFF00, 0xFFEF}, {0x20000, 0x3FFFF}} {
		for _, c := range []rune{r.lo - 1, r.lo, r.hi, r.hi + 1} {
			text := "Hi!" + string(c) + "x"
			want := none
			if c == r.lo || c == r.hi {
				want = "Hi!"
			}
			checkFirst(t, []firstCase{{text, false, want}})
		}
	}
}

// TestFirstAbbreviations holds every word of the abbreviation table, in
// any letter case and after opening quotes, to what the next word must
// start with for the sentence to go on.
func TestFirstAbbreviations(t *testing.T) {
	rules := map[string]string{ // word -> next-word starts that go on
		"Dr": "aA5你", "Mr": "aA5你", "Mrs": "aA5你", "Ms": "aA5你", "Mx": "aA5你", "Prof": "aA5你",
		"St": "aA5你", "vs": "aA5你", "cf": "aA5你", "e.g": "aA5你", "i.e": "aA5你",
		"a.m": "a5你", "p.m": "a5你", "etc": "a你", "No": "5",
	}
	for word, goesOn := range rules {
		for _, form := range []string{word, strings.ToUpper(word), strings.ToLower(word), `"` + word, "(\u201c" + word} {
			for _, next := range []string{"a", "A", "5", "你"} {
				text := "x " + form + ". " + next + "y. Z"
				want := "x " + form + "."
				if strings.Contains(goesOn, next) {
					want = "x " + form + ". " + next + "y."
				}
				checkFirst(t, []firstCase{{text, false, want}})
			}
		}
	}
	checkFirst(t, []firstCase{
		// Not one of the words: the dot ends the sentence.
		{"x.a.m. we. Z", false, "x.a.m."},
		{"8a.m. we. Z", false, "8a.m."},
		{"Dr.Who left. He", false, "Dr.Who left."},
		{"U.S. we. Z", false, "U.S."},
		{"nO. 5 x. Z", false, "nO. 5 x."},
		// Go's strings.ToLower (Lua's string.lower in this VM) maps 'İ'
		// to 'i': "İ.e." reads as "i.e.".
		{"İ.e. Next one", true, "İ.e. Next one"},
		{"İ.e. Next one. X", false, "İ.e. Next one."},
	})
}

// TestFirstLookBack: the word before a dot is read back at most 64 bytes;
// a longer one, opening brackets included, is no abbreviation.
func TestFirstLookBack(t *testing.T) {
	for n := 59; n <= 63; n++ {
		for _, c := range []struct {
			word   string
			goesOn bool
		}{
			{strings.Repeat("(", n) + "Dr", n+2 <= 64},
			{strings.Repeat("(", n-1) + "No", false}, // "No" before a capital ends it either way
		} {
			text := "x " + c.word + ". Big. Z"
			want := "x " + c.word + "."
			if c.goesOn {
				want = "x " + c.word + ". Big."
			}
			checkFirst(t, []firstCase{{text, false, want}})
		}
	}
	checkFirst(t, []firstCase{
		{"x " + strings.Repeat("（", 20) + "Dr. Big. Z", false, "x " + strings.Repeat("（", 20) + "Dr. Big."},
		{"x " + strings.Repeat("（", 21) + "Dr. Big. Z", false, "x " + strings.Repeat("（", 21) + "Dr."},
		// At the start of the text, the whole look-back is the word.
		{strings.Repeat("(", 62) + "Dr. Big. Z", false, strings.Repeat("(", 62) + "Dr. Big."},
		{strings.Repeat("(", 63) + "Dr. Big. Z", false, strings.Repeat("(", 63) + "Dr."},
		{"loooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooong. X", false,
			"loooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooong."},
	})
}

// TestFirstBrokenText: a character cut off by the end of the text waits
// for its bytes; a byte that starts no valid character reads as itself
// (not white space, not CJK).
func TestFirstBrokenText(t *testing.T) {
	checkFirst(t, []firstCase{
		{"Hello.\xe4\xbd", false, none}, // a letter or a space?
		{"Hello.\xe4\xbd\xa0", false, "Hello."},
		{"Hello.\xe4", false, none},
		{"Hello.\xf0\xa0\x80", false, none},
		{"Hello.\xf0\xa0\x80\x80", false, "Hello."}, // U+20000
		{"Hello\xe2\x80", false, none},              // the start of '…'?
		{"Hello\xe2\x80", true, "Hello\xe2\x80"},
		{"Hello\xe2\x80\xa6", false, none},
		{"Hello\xe3\x80", false, none}, // the start of '。'?
		{"Hello\xef\xbc", false, none}, // the start of '！'?
		{"Hello. \xff. X", false, "Hello."},
		{"Hello.\xff x. X", true, "Hello.\xff x."},
		{"Hello.\x80 x. X", true, "Hello.\x80 x."},
		{"Hello.\xc3x. Y", true, "Hello.\xc3x."},                   // a lead byte whose continuation is wrong
		{"Hello.\xed\xa0\x80 x. Y", true, "Hello.\xed\xa0\x80 x."}, // a surrogate is not CJK
		{"Hello.\xf8\x80\x80\x80 x. Y", true, "Hello.\xf8\x80\x80\x80 x."},
		{"Wait... \xe2\x80", false, none},
		{"Wait... \xe4\xbd\xa0. X", false, "Wait... \xe4\xbd\xa0."},
		{"At 8 a.m. \"\xe4\xbd", false, none},
	})
}

func TestFirstClauseRules(t *testing.T) {
	for _, c := range []struct {
		text     string
		final    bool
		minChars int
		want     string
	}{
		{"One, two, three, four, five", false, 20, "One, two, three, four,"},
		{"  One, two, three, four, five", false, 20, "  One, two, three, four,"},
		{"One, two. Three, four", false, 0, "One,"},
		{"One, two. Three, four", false, 20, "One, two."},
		{"walk-in at 7:30 for 1,000 people", true, 0, "walk-in at 7:30 for 1,000 people"},
		{"walk-in at 7:30 for 1,000 people", false, 0, none},
		{"你好，世界", false, 0, "你好，"},
		{"A - b", false, 0, "A -"},
		{"A -b", false, 0, none},
		{"-b - c", false, 0, "-b -"},
		{"A — b", false, -3, "A —"},
		{"A – b", false, 0, "A –"},
		{"A —b", false, 0, none},
		{"Still going,", false, 0, none}, // white space must follow
		{"Please bring your photo ID, your card and a list. Then", false, 20, "Please bring your photo ID,"},
		// Fewer than 20 characters before the comma: the sentence wins.
		{"Yes, we open at eight. Then", false, 20, "Yes, we open at eight."},
		{"Yes, we open at eight. Then", false, 3, "Yes,"},
		{"Yes, we open", false, 4, none},
		{"Yes, we open", false, 3, "Yes,"},
		{"  Our front desk opens early; come in. x", false, 20, "  Our front desk opens early;"},
		{"The clinic opens at 7:30 on weekdays: bring ID. x", false, 20, "The clinic opens at 7:30 on weekdays:"},
		{"It costs 1,000 dollars per year, paid monthly. x", false, 20, "It costs 1,000 dollars per year,"},
		{"Bring the walk-in form filled - it saves time. x", false, 20, "Bring the walk-in form filled -"},
		{"Bring the walk-in form filled — it saves time. x", false, 20, "Bring the walk-in form filled —"},
		{"Please bring your photo ID,", false, 20, none},
		{"Please bring your photo ID,", true, 20, "Please bring your photo ID,"},
		{"Please bring your photo ID", false, 20, none},
		{"Please bring your photo ID", true, 20, "Please bring your photo ID"},
		{"", false, 20, none},
		{"", true, 20, none},
		// The mark must come before the sentence's end.
		{"Hi. , x", false, 0, "Hi."},
		{"Hi., x", true, 0, "Hi.,"},
		// Characters, not bytes: 8 Chinese characters are 24 bytes.
		{"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", false, 8, "请带上您的身份证、"},
		{"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", false, 10, "请带上您的身份证、保险卡和药物清单，"},
		{"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", false, 20, none},
		{"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", true, 20, "请带上您的身份证、保险卡和药物清单，我们早上八点开门。"},
		{"请带上您的身份证，", false, 5, "请带上您的身份证，"},
		{"受付は午前八時からです：予約は不要です。", false, 8, "受付は午前八時からです："},
		{"好的。请带上您的身份证，", false, 5, "好的。"},
		{"请；好", false, 1, "请；"},
		{"请\uff0c好", false, 2, none},
		// Korean: ASCII marks before white space.
		{"네, 병원은 평일 오전 8시에 문을 엽니다, 토요일에는 쉽니다. 감사합니다", false, 10, "네, 병원은 평일 오전 8시에 문을 엽니다,"},
		// A broken lead byte counts as a character, a stray continuation
		// byte does not.
		{"\xff\xfe\x80, x", false, 2, "\xff\xfe\x80,"},
		{"\xff\xfe\x80, x", false, 3, none},
	} {
		end, ok := sentence.FirstClause(c.text, c.final, c.minChars)
		got := none
		if ok {
			got = c.text[:end]
		}
		if got != c.want {
			t.Errorf("FirstClause(%q, %v, %d) = %q, want %q", c.text, c.final, c.minChars, got, c.want)
		}
	}
}

// TestSplitterCJK: the Splitter over CJK answers, cut one byte at a time
// (every character split across chunks).
func TestSplitterCJK(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // sentences joined with "|"
	}{
		{"请带上身份证。还有保险卡！您几点到？", "请带上身份证。|还有保险卡！|您几点到？"},
		{"他说：“好的。”然后走了。", "他说：“好的。”|然后走了。"},
		{"明日は休みです。 月曜日に来てください", "明日は休みです。|月曜日に来てください"},
		{"「はい。」と言った。", "「はい。」|と言った。"},
		{"병원은 8시에 엽니다. 주차는 3.5달러입니다. 감사합니다", "병원은 8시에 엽니다.|주차는 3.5달러입니다.|감사합니다"},
		{"Please come early. 请早到。", "Please come early.|请早到。"},
		{"Hi. We open at 8 a.m. on Saturday. Call Dr. Lee!  Ok", "Hi.|We open at 8 a.m. on Saturday.|Call Dr. Lee!|Ok"},
		{"  One.\n\nTwo?  ", "One.|Two?"},
		{"Open 8 a.m. Bye", "Open 8 a.m.|Bye"},
		{"No end here", "No end here"},
		{"", ""},
		{"   ", ""},
	} {
		var s sentence.Splitter
		var got []string
		for i := range len(c.text) {
			for _, r := range s.Feed(c.text[i:i+1], float64(i)) {
				got = append(got, r.Text)
			}
		}
		for _, r := range s.End(0) {
			got = append(got, r.Text)
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%q: sentences %q, want %q", c.text, strings.Join(got, "|"), c.want)
		}
	}
}
