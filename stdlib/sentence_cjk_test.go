package stdlib_test

import "testing"

// TestSentenceFirstCJK: full-width stops end a sentence by themselves,
// closers after them belong to it, Korean keeps the English rules.
func TestSentenceFirstCJK(t *testing.T) {
	L := newVM(t)
	const none = undecided
	cases := []firstCase{
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
		{"等等……然后呢。好", false, "等等……然后呢。"},
		{"  请进。好", false, "  请进。"},
		// Japanese.
		{"明日は休みです。月曜日に来てください。", false, "明日は休みです。"},
		{"「はい。」と言った。", false, "「はい。」"},
		{"『本当？』彼は", false, "『本当？』"},
		{"受付は８時からです｡お待ちください", false, "受付は８時からです｡"},
		{"午前8時30分に開きます。", false, none},
		// Korean: ". " as in English.
		{"병원은 8시에 문을 엽니다. 신분증을 가져오세요.", false, "병원은 8시에 문을 엽니다."},
		{"주차는 시간당 3.5달러입니다. 네", false, "주차는 시간당 3.5달러입니다."},
		{"오전 8시 a.m. 에 엽니다. 네", false, "오전 8시 a.m. 에 엽니다."},
		{"오늘 오시나요? 네.", false, "오늘 오시나요?"},
		{"예약하셨나요?", false, none},
		{"신분증을 가져오세요", true, "신분증을 가져오세요"},
	}
	checkFirst(t, L, cases)
}

// TestSentenceFirstStreamedCJK: fed one byte at a time (a character split
// across chunks included), the decided sentence never changes and equals
// the final-mode answer.
func TestSentenceFirstStreamedCJK(t *testing.T) {
	L := newVM(t)
	texts := []string{
		"他说：“好的。”然后走了。",
		"你好!我是前台。",
		"「はい。」と言った。",
		"병원은 8시에 문을 엽니다. 신분증을 가져오세요.",
		"停车每小时3.5元。请早到。",
	}
	checkStreamedStable(t, L, texts)
}

func TestSentenceFirstTimeCJK(t *testing.T) {
	L := newVM(t)
	cases := []firstTimeCase{
		// The stop is last in its chunk: the next character decides.
		{`{{t_ms=10, text="请带上"}, {t_ms=20, text="身份证。"}, {t_ms=30, text="还有"}}`, "请带上身份证。", 30},
		// A closing quote in the next chunk still belongs to the sentence.
		{`{{t_ms=10, text="他说：“好的。"}, {t_ms=20, text="”"}, {t_ms=30, text="然后"}}`, "他说：“好的。”", 30},
		{`{{t_ms=5, text="明日は休みです。月"}, {t_ms=9, text="曜日"}}`, "明日は休みです。", 5},
		{`{{t_ms=5, text="네, 8시에 엽니다."}, {t_ms=7, text=" 감사합니다."}}`, "네, 8시에 엽니다.", 7},
		// Never decidable: the whole answer at the last chunk.
		{`{{t_ms=1, text="请带上"}, {t_ms=2, text="身份证。"}}`, "请带上身份证。", 2},
	}
	checkFirstTime(t, L, cases)
}

func TestSentenceSplitCJK(t *testing.T) {
	L := newVM(t)
	cases := []splitCase{
		{"请带上身份证。还有保险卡！您几点到？", "请带上身份证。|还有保险卡！|您几点到？"},
		{"他说：“好的。”然后走了。", "他说：“好的。”|然后走了。"},
		{"明日は休みです。 月曜日に来てください", "明日は休みです。|月曜日に来てください"},
		{"「はい。」と言った。", "「はい。」|と言った。"},
		{"병원은 8시에 엽니다. 주차는 3.5달러입니다. 감사합니다", "병원은 8시에 엽니다.|주차는 3.5달러입니다.|감사합니다"},
		{"Please come early. 请早到。", "Please come early.|请早到。"},
	}
	checkSplit(t, L, cases)
}

func TestSentenceFirstClause(t *testing.T) {
	L := newVM(t)
	const none = "\x00nil"
	cases := []struct {
		code string // arguments of first_clause
		want string
	}{
		{`"Please bring your photo ID, your card and a list. Then"`, "Please bring your photo ID,"},
		// Fewer than 20 characters before the comma: the sentence wins.
		{`"Yes, we open at eight. Then"`, "Yes, we open at eight."},
		{`"Yes, we open at eight. Then", false, 3`, "Yes,"},
		{`"  Our front desk opens early; come in. x"`, "  Our front desk opens early;"},
		{`"The clinic opens at 7:30 on weekdays: bring ID. x"`, "The clinic opens at 7:30 on weekdays:"},
		{`"It costs 1,000 dollars per year, paid monthly. x"`, "It costs 1,000 dollars per year,"},
		{`"Bring the walk-in form filled - it saves time. x"`, "Bring the walk-in form filled -"},
		{`"Bring the walk-in form filled — it saves time. x"`, "Bring the walk-in form filled —"},
		{`"Please bring your photo ID,"`, none}, // white space must follow
		{`"Please bring your photo ID,", true`, "Please bring your photo ID,"},
		{`"Please bring your photo ID"`, none},
		{`"Please bring your photo ID", true`, "Please bring your photo ID"},
		{`""`, none},
		// Chinese and Japanese: full-width marks by themselves.
		{`"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", false, 8`, "请带上您的身份证、"},
		{`"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", false, 10`, "请带上您的身份证、保险卡和药物清单，"},
		{`"请带上您的身份证、保险卡和药物清单，我们早上八点开门。"`, none},
		{`"请带上您的身份证、保险卡和药物清单，我们早上八点开门。", true`, "请带上您的身份证、保险卡和药物清单，我们早上八点开门。"},
		{`"请带上您的身份证，", false, 5`, "请带上您的身份证，"},
		{`"受付は午前八時からです：予約は不要です。", false, 8`, "受付は午前八時からです："},
		{`"好的。请带上您的身份证，", false, 5`, "好的。"},
		// Korean: ASCII marks before white space.
		{`"네, 병원은 평일 오전 8시에 문을 엽니다, 토요일에는 쉽니다. 감사합니다", false, 10`, "네, 병원은 평일 오전 8시에 문을 엽니다,"},
	}
	for _, c := range cases {
		code := c.code
		out := mustEval(t, L, `return require("sentence").first_clause(`+code+`)`)
		if c.want == none {
			if out[0].String() != "nil" || len(out) != 1 {
				t.Errorf("first_clause(%s) = %v, want nil", code, out)
			}
			continue
		}
		if len(out) != 2 || out[0].String() != c.want || int(num(t, out[1])) != len(c.want) {
			t.Errorf("first_clause(%s) = %v, want %q ending at %d", code, out, c.want, len(c.want))
		}
	}
	assertErr(t, L, `require("sentence").first_clause(7)`, "sentence.first_clause", "text must be a string")
	assertErr(t, L, `require("sentence").first_clause("a", false, -1)`, "sentence.first_clause", "min_chars", "-1")
}
