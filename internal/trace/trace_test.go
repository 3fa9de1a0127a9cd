package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, name, text string, o Options) *Trace {
	t.Helper()
	tr, err := Parse(strings.NewReader(text), name, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

func ptr(f float64) *float64 { return &f }

// TestBadTracesNameLineAndField: each fault of a trace is a *LineError
// naming the file, the line of the first fault and its field.
func TestBadTracesNameLineAndField(t *testing.T) {
	const good = `{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}`
	cases := []struct {
		name, file, text string
		line             int
		field, says      string
	}{
		{"not JSON", "m.jsonl", good + "\n{\"timestamp\": 5, \"input_length\": 3\n" + good, 2, "", "not JSON"},
		{"not an object", "m.jsonl", good + "\n[1, 2]\n", 2, "", "not a JSON object"},
		{"negative time", "m.jsonl", good + "\n\n" + `{"timestamp": -5, "input_length": 600, "output_length": 10, "hash_ids": []}`, 3, "timestamp", "-5 is negative"},
		{"missing field", "m.jsonl", good + "\n" + `{"timestamp": 5, "output_length": 10, "hash_ids": []}`, 2, "input_length", "missing"},
		{"missing hash_ids", "m.jsonl", good + "\n" + `{"timestamp": 5, "input_length": 6, "output_length": 10}`, 2, "hash_ids", "missing"},
		{"wrong type", "m.jsonl", good + "\n" + `{"timestamp": "5", "input_length": 6, "output_length": 10, "hash_ids": []}`, 2, "timestamp", "want a number, got a string"},
		{"non-integer tokens", "m.jsonl", good + "\n" + `{"timestamp": 5, "input_length": 6.5, "output_length": 10, "hash_ids": []}`, 2, "input_length", "not a whole number"},
		{"no tokens", "m.jsonl", good + "\n" + `{"timestamp": 5, "input_length": 6, "output_length": 0, "hash_ids": []}`, 2, "output_length", "1 token or more"},
		{"negative hash_id", "m.jsonl", good + "\n" + `{"timestamp": 5, "input_length": 6, "output_length": 1, "hash_ids": [3, -1]}`, 2, "hash_ids", "item 2"},
		{"out of order", "m.jsonl", `{"timestamp": 100, "input_length": 6, "output_length": 1, "hash_ids": []}` + "\n" +
			`{"timestamp": 250, "input_length": 6, "output_length": 1, "hash_ids": []}` + "\n" +
			`{"timestamp": 200, "input_length": 6, "output_length": 1, "hash_ids": []}`, 3, "timestamp", "200 ms is before line 2's 250 ms: times out of order"},
		{"call log not JSON", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}` + "\nnot json\n", 2, "", "not JSON"},
		{"call log unknown key", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi", "pause": 300}`, 1, "pause", "unknown field"},
		{"call log negative time", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi", "pause_ms": -3}`, 1, "pause_ms", "-3 is negative"},
		{"call log missing start", "c.jsonl", `{"call": "a", "text": "hi"}`, 1, "start_ms", "missing"},
		{"call log missing text", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}` + "\n" + `{"call": "a", "speak_ms": 1}`, 2, "text", "missing"},
		{"call log missing call", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}` + "\n" + `{"start_ms": 0, "text": "hi"}`, 2, "call", "missing"},
		{"call log both text and length", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi", "input_tokens": 4}`, 1, "input_tokens", "not both"},
		{"call log start changed", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}` + "\n" + `{"call": "a", "start_ms": 9, "text": "hi"}`, 2, "start_ms", "began at 0"},
		{"call log out of order", "c.jsonl", `{"call": "a", "start_ms": 500, "text": "hi"}` + "\n" + `{"call": "b", "start_ms": 400, "text": "hi"}`, 2, "start_ms", `call "b" starts at 400 ms, before call "a" at 500 ms: times out of order`},
		{"call log turns apart", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}` + "\n" + `{"call": "b", "start_ms": 1, "text": "hi"}` + "\n" + `{"call": "a", "text": "again"}`, 3, "call", `call "a"'s turns are not on consecutive lines`},
		{"call log missing audio", "c.jsonl", `{"call": "a", "start_ms": 0, "text": "hi", "audio": "nowhere.wav"}`, 1, "audio", "no such file"},
		{"csv negative time", "c.csv", "call,start_ms,text\na,0,hi\nb,-2,hi\n", 3, "start_ms", "-2 is negative"},
		{"csv not a number", "c.csv", "call,start_ms,text\na,soon,hi\n", 2, "start_ms", `want a number, got "soon"`},
		{"csv unknown column", "c.csv", "call,start,text\na,0,hi\n", 1, "start", "unknown column"},
		{"csv unnamed column", "c.csv", "call,start_ms,text,\na,0,hi,\n", 1, "", "column 4 of the header has no name"},
		{"csv cells", "c.csv", "call,start_ms,text\na,0,hi,there\n", 2, "", "4 cells, the header has 3"},
		{"csv quoting", "c.csv", "call,start_ms,text\na,0,\"hi\nb,1,yo\n", 2, "", "not CSV"},
		{"csv out of order", "c.csv", "text,call,start_ms\nhi,a,10\n\"two\nlines\",a,\nhi,b,5\n", 5, "start_ms", "times out of order"},
		{"csv non-integer tokens", "c.csv", "call,start_ms,input_tokens\na,0,12.5\n", 2, "input_tokens", "not a whole number"},
		{"unknown format", "t.jsonl", `{"time": 0}`, 1, "", `neither "timestamp"`},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.text), c.file, Options{})
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("%s: got %v, want a line error", c.name, err)
			continue
		}
		if le.Path != c.file || le.Line != c.line || le.Field != c.field || !strings.Contains(le.Msg, c.says) {
			t.Errorf("%s: got %s (line %d, field %q), want line %d, field %q, saying %q", c.name, err, le.Line, le.Field, c.line, c.field, c.says)
		}
		want := fmt.Sprintf("%s:%d: ", c.file, c.line)
		if c.field != "" {
			want += c.field + ": "
		}
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q does not begin %q", c.name, err, want)
		}
	}
	for _, blank := range []string{"", "\n  \n\n", "call,start_ms,text\n"} {
		_, err := Parse(strings.NewReader(blank), "b.csv", Options{})
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "no lines") {
			t.Errorf("%q: got %v, want no lines", blank, err)
		}
	}
}

// TestOptionsAreChecked: a speed, a block or a window that cannot be
// played is refused, and a window that keeps no call says so.
func TestOptionsAreChecked(t *testing.T) {
	const log = `{"call": "a", "start_ms": 1000, "text": "hi"}` + "\n" + `{"call": "b", "start_ms": 2000, "text": "hi"}`
	for _, o := range []Options{{Speed: -1}, {Block: -512}, {FromMs: ptr(-1)}, {Format: "azure"}} {
		if _, err := Parse(strings.NewReader(log), "c.jsonl", o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	for _, o := range []Options{{FromMs: ptr(2001)}, {ToMs: ptr(1000)}, {FromMs: ptr(1500), ToMs: ptr(1600)}} {
		_, err := Parse(strings.NewReader(log), "c.jsonl", o)
		var le *LineError
		if err == nil || errors.As(err, &le) || !strings.Contains(err.Error(), "keep no call") {
			t.Errorf("from %v to %v: got %v, want the window keeps no call", o.FromMs, o.ToMs, err)
		}
	}
}

// TestFormatIsToldFromTheFile: a .csv is a call log; a JSON line with
// "timestamp" a Mooncake trace, with "call" a call log; a format given
// is taken.
func TestFormatIsToldFromTheFile(t *testing.T) {
	cases := []struct {
		name, text string
		o          Options
		want       Format
	}{
		{"t.jsonl", "\n" + `{"timestamp": 0, "input_length": 6, "output_length": 1, "hash_ids": []}`, Options{}, Mooncake},
		{"t.jsonl", `{"call": "a", "start_ms": 0, "text": "hi"}`, Options{}, Calls},
		{"t.CSV", "call,start_ms,text\na,0,hi\n", Options{}, Calls},
		{"t.txt", "call,start_ms,text\na,0,hi\n", Options{Format: Calls}, Calls},
		{"t.log", `{"call": "a", "start_ms": 0, "text": "hi"}`, Options{Format: Calls}, Calls},
	}
	for _, c := range cases {
		if tr := parse(t, c.name, c.text, c.o); tr.Format != c.want || tr.Requests != 1 {
			t.Errorf("%s: read as %s with %d requests, want %s with 1", c.name, tr.Format, tr.Requests, c.want)
		}
	}
	// A call log read as a Mooncake trace lacks its fields.
	if _, err := Parse(strings.NewReader(cases[1].text), "t.jsonl", Options{Format: Mooncake}); err == nil || !strings.Contains(err.Error(), "timestamp: missing") {
		t.Errorf("a call log read as Mooncake: got %v", err)
	}
}

// TestCSVAndJSONLReadTheSameCalls: one call log written as JSON lines and
// as CSV (columns in another order, a text over two lines, empty cells)
// reads as the same calls, turns, times and audio files, each turn with
// its own line.
func TestCSVAndJSONLReadTheSameCalls(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a1.wav"), []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonl := "\n" + strings.Join([]string{
		`{"call": "c-1", "start_ms": 250, "text": "I'd like to book a table", "speak_ms": 1800, "pause_ms": 900, "audio": "a1.wav"}`,
		`{"call": "c-1", "start_ms": 250, "text": "for two,\nat eight", "speak_ms": 1200, "output_tokens": 40}`,
		`{"call": "c-1", "input_tokens": 12, "speak_ms": 700.5}`,
		`{"call": "c-2", "start_ms": 900, "text": "hello", "pause_ms": 0}`,
	}, "\n")
	csv := "pause_ms,text,call,speak_ms,start_ms,input_tokens,output_tokens,audio\n" +
		"900,I'd like to book a table,c-1,1800,250,,,a1.wav\n" +
		"\"\",\"for two,\nat eight\",c-1,1200,250,,40,\n" +
		",,c-1,700.5,,12,,\n" +
		"0,hello,c-2,,900,,,\n"
	if err := os.WriteFile(filepath.Join(dir, "log.jsonl"), []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Read(filepath.Join(dir, "log.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read(filepath.Join(dir, "log.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	calls := func(lines ...int) []Call {
		return []Call{
			{ID: "c-1", StartMs: 0, Turns: []Turn{
				{Line: lines[0], Text: "I'd like to book a table", SpeakMs: 1800, PauseMs: 900, Audio: filepath.Join(dir, "a1.wav")},
				{Line: lines[1], Text: "for two,\nat eight", SpeakMs: 1200, OutputTokens: 40},
				{Line: lines[2], InputTokens: 12, SpeakMs: 700.5},
			}},
			{ID: "c-2", StartMs: 650, Turns: []Turn{{Line: lines[3], Text: "hello"}}, seq: 1},
		}
	}
	// The JSONL's first line is blank; the CSV's second turn spans lines
	// 3 and 4.
	jw, want := calls(2, 3, 4, 5), calls(2, 3, 5, 6)
	if !reflect.DeepEqual(j.Calls, jw) {
		t.Errorf("JSONL read\n%+v\nwant\n%+v", j.Calls, jw)
	}
	if !reflect.DeepEqual(c.Calls, want) {
		t.Errorf("CSV read\n%+v\nwant\n%+v", c.Calls, want)
	}
	for _, tr := range []*Trace{j, c} {
		if tr.Format != Calls || tr.Lines != 4 || tr.Requests != 4 || tr.InputTokens != 0 || tr.SharedShare() != nil {
			t.Errorf("%s: format %s, %d lines, %d requests, %d input tokens, share %v", tr.Path, tr.Format, tr.Lines, tr.Requests, tr.InputTokens, tr.SharedShare())
		}
	}
}

// TestReadDigestsTheWholeFile: the trace's SHA-256 is its file's, a
// byte changed anywhere changes it.
func TestReadDigestsTheWholeFile(t *testing.T) {
	text := `{"timestamp": 0, "input_length": 6, "output_length": 1, "hash_ids": [], "x": 1}` + "\n"
	path := filepath.Join(t.TempDir(), "m.jsonl")
	for _, body := range []string{text, strings.Replace(text, `"x": 1`, `"x": 2`, 1)} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := Read(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(body))
		if tr.SHA256 != hex.EncodeToString(sum[:]) || tr.Path != path {
			t.Errorf("sha256 %s of %s, want %x", tr.SHA256, tr.Path, sum)
		}
	}
}

// TestWindowAndSpeed: the window keeps the calls that start in
// [from, to) on the trace's clock; times then count from its start (or
// the first kept call's) and are divided by the speed, speaking and
// pausing times too.
func TestWindowAndSpeed(t *testing.T) {
	log := strings.Join([]string{
		`{"call": "a", "start_ms": 1000, "text": "hi", "speak_ms": 400, "pause_ms": 800}`,
		`{"call": "a", "text": "yes"}`,
		`{"call": "b", "start_ms": 5000, "text": "hi", "speak_ms": 200}`,
		`{"call": "c", "start_ms": 9000, "text": "hi"}`,
		`{"call": "d", "start_ms": 12000, "text": "hi"}`,
	}, "\n")
	cases := []struct {
		o      Options
		ids    string
		starts []float64
		speak0 float64
	}{
		{Options{}, "a b c d", []float64{0, 4000, 8000, 11000}, 400},
		{Options{Speed: 2}, "a b c d", []float64{0, 2000, 4000, 5500}, 200},
		{Options{FromMs: ptr(1000), ToMs: ptr(9000)}, "a b", []float64{0, 4000}, 400},
		{Options{FromMs: ptr(2000), ToMs: ptr(9000.5), Speed: 4}, "b c", []float64{750, 1750}, 50},
		{Options{FromMs: ptr(1001)}, "b c d", []float64{3999, 7999, 10999}, 200},
		{Options{ToMs: ptr(5000), Speed: 0.5}, "a", []float64{0}, 800},
	}
	for _, c := range cases {
		tr := parse(t, "c.jsonl", log, c.o)
		var ids []string
		var starts []float64
		for _, call := range tr.Calls {
			ids = append(ids, call.ID)
			starts = append(starts, call.StartMs)
		}
		if strings.Join(ids, " ") != c.ids || !slices.Equal(starts, c.starts) || tr.Calls[0].Turns[0].SpeakMs != c.speak0 || tr.Lines != 5 {
			t.Errorf("from %v to %v at x%v: kept %v starting %v (first speaking %v), %d lines; want %s starting %v (%v), 5 lines",
				c.o.FromMs, c.o.ToMs, c.o.Speed, ids, starts, tr.Calls[0].Turns[0].SpeakMs, tr.Lines, c.ids, c.starts, c.speak0)
		}
	}
	if tr := parse(t, "c.jsonl", log, Options{Speed: 2}); tr.Calls[0].Turns[0].PauseMs != 400 || tr.Speed != 2 || tr.Requests != 5 {
		t.Errorf("at x2: pause %v ms, speed %v, %d requests; want 400, 2, 5", tr.Calls[0].Turns[0].PauseMs, tr.Speed, tr.Requests)
	}
}

// mooncake writes a Mooncake trace of lines (timestamp, input_length,
// hash_ids) at 10 ms apart.
func mooncake(lines [][]int64, inputs []int) string {
	var b strings.Builder
	for i, ids := range lines {
		s := make([]string, len(ids))
		for j, id := range ids {
			s[j] = fmt.Sprint(id)
		}
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 8, "hash_ids": [%s], "conversation_id": 7}`+"\n", 10*i, inputs[i], strings.Join(s, ", "))
	}
	return b.String()
}

// TestSharedTokens: a line shares the tokens of its leading blocks that
// earlier kept lines sent, the last block its cut length, a block only as
// far as an earlier line sent it; unique lines and lines left out by the
// window share nothing.
func TestSharedTokens(t *testing.T) {
	lines := [][]int64{
		{1, 2, 3},       // 1: 1200 tokens, block 3 cut to 176: shares none
		{90},            // 2: unique
		{1, 2, 4},       // 3: blocks 1 and 2 shared: 1024
		{},              // 4: no hash_ids: a prompt of its own
		{1, 2, 3, 5},    // 5: 1, 2 whole, 3 only its 176 sent on line 1: 1200
		{1, 2, 3},       // 6: 1300 tokens, its last block (276) was sent whole by line 5: all
		{91, 1, 2},      // 7: its first block unseen: none
		{1, 2},          // 8: 700 tokens, block 2 cut to 188: all
		{1, 6},          // 9: 600, 6 unseen: 512
		{2, 1},          // 10: seen, each at another place: counted as the ids say
		{1, 2, 3, 5, 7}, // 11: 1500 tokens end in block 3 (476): 5 and 7 unsent: all
	}
	inputs := []int{1200, 300, 1500, 40, 2000, 1300, 1400, 700, 600, 1024, 1500}
	want := []int{0, 0, 1024, 0, 1200, 1300, 0, 700, 512, 1024, 1500}
	text := mooncake(lines, inputs)
	tr := parse(t, "m.jsonl", text, Options{})
	var in, sh int
	for i, c := range tr.Calls {
		tu := c.Turns[0]
		if c.ID != fmt.Sprint(i+1) || tu.Line != i+1 || tu.InputTokens != inputs[i] || tu.OutputTokens != 8 || !slices.Equal(tu.HashIDs, lines[i]) {
			t.Errorf("line %d read as call %s: %+v", i+1, c.ID, tu)
		}
		if tu.SharedTokens != want[i] {
			t.Errorf("line %d %v of %d tokens: shares %d, want %d", i+1, lines[i], inputs[i], tu.SharedTokens, want[i])
		}
		in += inputs[i]
		sh += want[i]
	}
	if tr.InputTokens != in || tr.SharedTokens != sh || tr.SharedShare() == nil || *tr.SharedShare() != float64(sh)/float64(in) {
		t.Errorf("sums %d/%d (share %v), want %d/%d", tr.SharedTokens, tr.InputTokens, tr.SharedShare(), sh, in)
	}

	// Only kept lines count: from line 3 on, line 1 was not sent.
	tr = parse(t, "m.jsonl", text, Options{FromMs: ptr(20)})
	if got := tr.Calls[0].Turns[0].SharedTokens; tr.Calls[0].ID != "3" || got != 0 {
		t.Errorf("line 3 first kept: shares %d, want 0", got)
	}
	if got := tr.Calls[2].Turns[0].SharedTokens; tr.Calls[2].ID != "5" || got != 1024 {
		t.Errorf("line 5 after lines 3 and 4 only: shares %d, want 1024", got)
	}

	// A smaller block: line 3 shares blocks 1 and 2 of 100 tokens.
	tr = parse(t, "m.jsonl", text, Options{Block: 100})
	if got := tr.Calls[2].Turns[0].SharedTokens; tr.Block != 100 || got != 200 {
		t.Errorf("block 100: line 3 shares %d, want 200", got)
	}
}

// TestSharingIsExact: on a trace whose hash_ids name prefixes (as
// Mooncake's do: a tree of blocks), every line's SharedTokens is the
// longest prefix its prompt has in common with an earlier kept line's.
func TestSharingIsExact(t *testing.T) {
	const block = 16
	v := VocabOf(0)
	var lines [][]int64
	var inputs []int
	// Prefix chains: a system prompt (1), two documents (2, 3) after it,
	// questions after those; their lengths cut blocks anywhere.
	chains := [][]int64{{1, 2, 10}, {1, 3}, {1, 2, 11, 12}, {1}, {1, 3, 13}, {1, 2}, {4}, {1, 2, 10, 14}, {1, 3, 13}}
	lens := []int{40, 20, 60, 16, 45, 17, 9, 64, 33}
	for i := range chains {
		lines = append(lines, chains[i])
		inputs = append(inputs, lens[i])
	}
	tr := parse(t, "m.jsonl", mooncake(lines, inputs), Options{Block: block})
	var prompts [][]int
	for _, c := range tr.Calls {
		tu := c.Turns[0]
		p := tu.Prompt(tr.Block, v)
		lcp := 0
		for _, q := range prompts {
			n := 0
			for n < len(p) && n < len(q) && p[n] == q[n] {
				n++
			}
			lcp = max(lcp, n)
		}
		if tu.SharedTokens != lcp {
			t.Errorf("line %d %v of %d tokens: SharedTokens %d, its prompt has %d tokens in common with an earlier one", tu.Line, tu.HashIDs, tu.InputTokens, tu.SharedTokens, lcp)
		}
		prompts = append(prompts, p)
	}
}

// TestBlockTokens: a block's ids are a pure function of the hash_id, in
// the vocabulary, the shorter the start of the longer; other hash_ids
// give other ids, and the ids are those of every machine.
func TestBlockTokens(t *testing.T) {
	v := VocabOf(0)
	long := BlockTokens(42, 1000, v)
	if len(long) != 1000 {
		t.Fatalf("%d ids, want 1000", len(long))
	}
	for _, n := range []int{0, 1, 7, 512, 999} {
		if got := BlockTokens(42, n, v); !slices.Equal(got, long[:n]) {
			t.Errorf("BlockTokens(42, %d) is not the start of BlockTokens(42, 1000)", n)
		}
	}
	if !slices.Equal(BlockTokens(42, 1000, v), long) {
		t.Error("BlockTokens(42, 1000) differs from one call to the next")
	}
	for _, id := range long {
		if id < v.Lo || id >= v.Hi {
			t.Fatalf("id %d outside [%d, %d)", id, v.Lo, v.Hi)
		}
	}
	other := BlockTokens(43, 1000, v)
	same := 0
	for i := range other {
		if other[i] == long[i] {
			same++
		}
	}
	if same > 10 {
		t.Errorf("hash_ids 42 and 43 agree on %d of 1000 ids", same)
	}
	// Pinned: a shard on another machine draws these very ids.
	if got, want := BlockTokens(0, 4, v), []int{11697, 13764, 15919, 12361}; !slices.Equal(got, want) {
		t.Errorf("BlockTokens(0, 4, %v) = %v, want %v", v, got, want)
	}
	small := VocabOf(512)
	for _, id := range BlockTokens(7, 2000, small) {
		if id < 128 || id >= 256 {
			t.Fatalf("id %d outside the second quarter of 512", id)
		}
	}
}

func TestVocabOf(t *testing.T) {
	for n, want := range map[int]Vocab{0: {8000, 16000}, -1: {8000, 16000}, 151936: {37984, 75968}, 512: {128, 256}, 1: {0, 1}} {
		if got := VocabOf(n); got != want {
			t.Errorf("VocabOf(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestPromptIsInputLengthLong: a prompt has input_length ids, its blocks
// those of its hash_ids in order (the last cut, or longer when the line
// has more tokens than its blocks hold), and a line without hash_ids a
// prompt of its own.
func TestPromptIsInputLengthLong(t *testing.T) {
	v := VocabOf(0)
	const b = 512
	for _, c := range []struct {
		ids []int64
		n   int
	}{{[]int64{5, 6, 7}, 1200}, {[]int64{5, 6, 7}, 1536}, {[]int64{5, 6, 7}, 2000}, {[]int64{5, 6, 7}, 300}, {[]int64{5}, 1}, {nil, 700}} {
		p := Turn{Line: 3, InputTokens: c.n, HashIDs: c.ids}.Prompt(b, v)
		if len(p) != c.n {
			t.Errorf("%v of %d tokens: prompt of %d", c.ids, c.n, len(p))
			continue
		}
		for j, id := range c.ids {
			lo := j * b
			if lo >= c.n {
				break
			}
			hi := min(lo+b, c.n)
			if j == len(c.ids)-1 {
				hi = c.n
			}
			if !slices.Equal(p[lo:hi], BlockTokens(id, hi-lo, v)) {
				t.Errorf("%v of %d tokens: tokens %d to %d are not hash_id %d's block", c.ids, c.n, lo, hi, id)
			}
		}
	}
	a := Turn{Line: 3, InputTokens: 700}.Prompt(b, v)
	if other := (Turn{Line: 4, InputTokens: 700}).Prompt(b, v); slices.Equal(a[:8], other[:8]) {
		t.Error("lines 3 and 4 without hash_ids begin alike")
	}
	if !slices.Equal(a, Turn{Line: 3, InputTokens: 700}.Prompt(b, v)) {
		t.Error("line 3's own prompt differs from one call to the next")
	}
	if blk := BlockTokens(3, 8, v); slices.Equal(a[:8], blk) {
		t.Error("line 3's own prompt is hash_id 3's block")
	}
	if p := (Turn{Line: 1, InputTokens: 600, HashIDs: []int64{1, 2}}).Prompt(0, v); !slices.Equal(p[:DefaultBlock], BlockTokens(1, DefaultBlock, v)) || !slices.Equal(p[DefaultBlock:], BlockTokens(2, 88, v)) {
		t.Error("block 0 is not the default block")
	}
}

// TestTiming: without a speaking caller a request is due when its caller
// stops speaking, with one when the caller starts; Think is the pause
// (and the next turn's speaking) after a turn; calls are numbered in the
// order their first requests are due, Turn following that order.
func TestTiming(t *testing.T) {
	log := strings.Join([]string{
		`{"call": "a", "start_ms": 0, "text": "one", "speak_ms": 3000, "pause_ms": 500}`,
		`{"call": "a", "text": "two", "speak_ms": 1000, "pause_ms": 250}`,
		`{"call": "a", "text": "three", "speak_ms": 2000, "pause_ms": 9999}`,
		`{"call": "b", "start_ms": 1000, "text": "only", "speak_ms": 500.25}`,
		`{"call": "c", "start_ms": 1000, "text": "first", "pause_ms": 100}`,
		`{"call": "c", "text": "second", "speak_ms": 40}`,
	}, "\n")
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	cases := []struct {
		spoken bool
		order  string
		starts []time.Duration
		turns  []int
		think  map[[2]int]time.Duration
	}{
		{false, "c b a", []time.Duration{ms(1000), ms(1500.25), ms(3000)}, []int{2, 1, 3},
			map[[2]int]time.Duration{{1, 2}: ms(140), {3, 2}: ms(1500), {3, 3}: ms(2250), {3, 1}: 0, {3, 4}: 0, {2, 2}: 0, {4, 2}: 0, {0, 2}: 0}},
		{true, "a b c", []time.Duration{0, ms(1000), ms(1000)}, []int{3, 1, 2},
			map[[2]int]time.Duration{{1, 2}: ms(500), {1, 3}: ms(250), {3, 2}: ms(100), {1, 1}: 0, {1, 4}: 0}},
	}
	tr := parse(t, "c.jsonl", log, Options{})
	for _, round := range []int{1, 2} {
		for _, c := range cases {
			tm := tr.Timing(c.spoken)
			var order []string
			for i := range tr.Calls {
				order = append(order, tr.Calls[i].ID)
				if tu := tr.Turn(i+1, 1); tu == nil || tu != &tr.Calls[i].Turns[0] {
					t.Errorf("Turn(%d, 1) is not call %s's first turn", i+1, tr.Calls[i].ID)
				}
			}
			if strings.Join(order, " ") != c.order || !slices.Equal(tm.Starts, c.starts) || !slices.Equal(tm.Turns, c.turns) {
				t.Errorf("round %d, spoken %v: calls %v due %v with %v turns; want %s due %v with %v", round, c.spoken, order, tm.Starts, tm.Turns, c.order, c.starts, c.turns)
			}
			for k, want := range c.think {
				if got := tm.Think(k[0], k[1]); got != want {
					t.Errorf("round %d, spoken %v: Think(%d, %d) = %v, want %v", round, c.spoken, k[0], k[1], got, want)
				}
			}
		}
	}
	if tr.Turn(1, 0) != nil || tr.Turn(0, 1) != nil || tr.Turn(4, 1) != nil || tr.Turn(1, 4) != nil {
		t.Error("Turn out of range is not nil")
	}
	if tu := tr.Turn(1, 3); tu == nil || tu.Text != "three" || tu.Line != 3 {
		t.Errorf("Turn(1, 3) = %+v, want call a's third", tu)
	}

	// A Mooncake line is due at its timestamp, sped up.
	mc := parse(t, "m.jsonl", mooncake([][]int64{{1}, {2}, {3}}, []int{5, 5, 5}), Options{Speed: 4})
	if tm := mc.Timing(false); !slices.Equal(tm.Starts, []time.Duration{0, ms(2.5), ms(5)}) || !slices.Equal(tm.Turns, []int{1, 1, 1}) {
		t.Errorf("Mooncake at x4: due %v, %v turns", tm.Starts, tm.Turns)
	}
}
