// Package trace reads recorded traffic for replay: Mooncake traces
// (JSONL: timestamp, input_length, output_length, hash_ids) and
// ttftlab's own call log (JSONL or CSV: a line per turn of a call), each
// checked whole before anything is replayed, an error naming the line and
// the field. It knows nothing of the load engine or of HTTP: it gives the
// calls, their turns and times, and the token ids of a Mooncake prompt.
package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Format is a trace's format.
type Format string

// Formats.
const (
	// Mooncake is a Mooncake trace: one request a line, each its own call
	// of one turn.
	Mooncake Format = "mooncake"
	// Calls is ttftlab's call log: one turn a line, a call's turns on
	// consecutive lines with the same call id.
	Calls Format = "calls"
)

// DefaultBlock is the tokens of a Mooncake hash_id block.
const DefaultBlock = 512

// Options say what of a trace to replay and how.
type Options struct {
	// Format is the trace's format; "" tells it from the file (a .csv is
	// a call log; a JSON line with "timestamp" a Mooncake trace, with
	// "call" a call log).
	Format Format
	// Speed divides every time of the trace (2: twice as fast); 0 is 1.
	Speed float64
	// FromMs and ToMs are a window on the trace's own clock: the calls
	// that start in [FromMs, ToMs) are kept (nil: no bound). Times then
	// count from FromMs when given, else from the first kept call's start.
	FromMs, ToMs *float64
	// Block is the tokens of a hash_id block (0: DefaultBlock).
	Block int
}

// Turn is one request of a call.
type Turn struct {
	// Line is the file's line the turn came from (from 1; a CSV's header
	// is line 1).
	Line int
	// Text is the caller's words (a call log's text), "" when the trace
	// gives only a length.
	Text string
	// InputTokens is the prompt's length in tokens (Mooncake's
	// input_length), or a call log's input_tokens when it gives no text;
	// 0 otherwise.
	InputTokens int
	// OutputTokens is the answer's length in tokens (Mooncake's
	// output_length, a call log's output_tokens); 0 when not given.
	OutputTokens int
	// HashIDs are a Mooncake line's blocks: requests that share a hash_id
	// share that block of the prompt token for token.
	HashIDs []int64
	// SharedTokens is, for a Mooncake line, the tokens of its leading
	// blocks whose hash_id an earlier kept line had, each block as far as
	// an earlier kept line sent it (a block cut short sent only its
	// start), stopping at the first block not sent whole: what a prefix
	// cache can hold of it when it arrives.
	SharedTokens int
	// SpeakMs is a call log's caller speaking time for the turn (0 when
	// not given), after the window's speed.
	SpeakMs float64
	// PauseMs is a call log's pause between the end of the turn's answer
	// and the caller starting the next turn, after the speed.
	PauseMs float64
	// Audio is a call log's audio file of the turn, resolved against the
	// trace's folder; "" when not given.
	Audio string
}

// Call is one call of the trace.
type Call struct {
	// ID is the trace's call id (a Mooncake line's number).
	ID string
	// StartMs is when the call's first turn began (the caller started to
	// speak; a Mooncake request's arrival), in ms since the replay's
	// origin, after the speed.
	StartMs float64
	Turns   []Turn

	// seq is the call's place in the trace's order among the kept calls
	// (from 0): Timing's ties keep it.
	seq int
}

// Trace is a trace read whole and checked.
type Trace struct {
	Format Format
	// Path is the file as given; SHA256 its content's digest (hex).
	Path   string
	SHA256 string
	// Lines is the data lines read (before the window).
	Lines int
	// Calls are the kept calls, in start order (Timing puts them in the
	// order their first requests are due); Requests their turns.
	Calls    []Call
	Requests int
	// Speed is the speed the times were divided by (Options.Speed, 1 for 0).
	Speed float64
	// Block is the hash_id block size the prompts and SharedTokens use.
	Block int
	// InputTokens and SharedTokens are the sums over the kept Mooncake
	// lines (0 for a call log).
	InputTokens, SharedTokens int
}

// LineError is a trace that cannot be replayed: the file, the line (from
// 1; 0 when the file as a whole is at fault) and the field at fault (""
// when the line as a whole is).
type LineError struct {
	Path  string
	Line  int
	Field string
	Msg   string
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.Path, e.Line, e.Field, e.Msg)
}

// Read reads and checks the trace at path (see Parse).
func Read(path string, o Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, o)
}

// Parse reads and checks a whole trace named name from r: every line
// valid (JSON, or CSV with the call log's header), every field present
// and in range, times never going back; the first fault is a
// *LineError. Then the window and the speed are applied. A call log's
// audio files are resolved against name's folder and must exist.
func Parse(r io.Reader, name string, o Options) (*Trace, error) {
	o, err := o.normal()
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &LineError{Path: name, Msg: "no lines: the trace is empty"}
	}
	format, csv, err := detect(data, name, o.Format)
	if err != nil {
		return nil, err
	}
	var calls []Call
	var lines int
	switch {
	case format == Mooncake:
		calls, lines, err = readMooncake(data, name)
	case csv:
		calls, lines, err = readCallsCSV(data, name)
	default:
		calls, lines, err = readCallsJSONL(data, name)
	}
	if err != nil {
		return nil, err
	}
	if lines == 0 {
		return nil, &LineError{Path: name, Msg: "no lines: the trace has a header and no call"}
	}
	t := &Trace{Format: format, Path: name, SHA256: hex.EncodeToString(sum[:]), Lines: lines, Block: o.Block, Speed: o.Speed}
	if t.Calls, err = window(calls, o); err != nil {
		return nil, err
	}
	seen := map[int64]int{}
	for i := range t.Calls {
		c := &t.Calls[i]
		t.Requests += len(c.Turns)
		if format != Mooncake {
			continue
		}
		tu := &c.Turns[0]
		tu.SharedTokens = shared(*tu, t.Block, seen)
		t.InputTokens += tu.InputTokens
		t.SharedTokens += tu.SharedTokens
	}
	return t, nil
}

// SharedShare is the share of the kept requests' input tokens an earlier
// kept request had sent (SharedTokens / InputTokens), nil for a call log.
func (t *Trace) SharedShare() *float64 {
	if t.Format != Mooncake || t.InputTokens == 0 {
		return nil
	}
	s := float64(t.SharedTokens) / float64(t.InputTokens)
	return &s
}

// normal checks o and puts its defaults in.
func (o Options) normal() (Options, error) {
	switch o.Format {
	case "", Mooncake, Calls:
	default:
		return o, fmt.Errorf("unknown trace format %q: want %s or %s", o.Format, Mooncake, Calls)
	}
	switch {
	case o.Speed == 0:
		o.Speed = 1
	case !(o.Speed > 0) || math.IsInf(o.Speed, 1):
		return o, fmt.Errorf("the trace's speed must be above 0, got %v", o.Speed)
	}
	switch {
	case o.Block == 0:
		o.Block = DefaultBlock
	case o.Block < 0:
		return o, fmt.Errorf("the trace's hash_id block must be 1 token or more, got %d", o.Block)
	}
	for _, b := range []*float64{o.FromMs, o.ToMs} {
		if b != nil && (!(*b >= 0) || math.IsInf(*b, 1)) {
			return o, fmt.Errorf("the trace's window bounds must be 0 ms or more, got %v", *b)
		}
	}
	return o, nil
}

// detect tells the trace's format, and for a call log whether it is CSV:
// a .csv name is a CSV call log; else the first non-blank line, a JSON
// object, has "timestamp" (Mooncake) or "call" (a call log).
func detect(data []byte, name string, f Format) (Format, bool, error) {
	isCSV := strings.EqualFold(filepath.Ext(name), ".csv")
	if f == Mooncake {
		return f, false, nil
	}
	n, first := firstLine(data)
	if f == Calls {
		return f, isCSV || !bytes.HasPrefix(first, []byte("{")), nil
	}
	if isCSV {
		return Calls, true, nil
	}
	m, err := jsonObject(first, name, n)
	if err != nil {
		return "", false, err
	}
	switch {
	case m["timestamp"] != nil:
		return Mooncake, false, nil
	case m["call"] != nil:
		return Calls, false, nil
	}
	return "", false, &LineError{Path: name, Line: n, Msg: `neither "timestamp" (a Mooncake trace) nor "call" (a call log) is among its keys: cannot tell the trace's format`}
}

// firstLine is the first non-blank line and its number (from 1).
func firstLine(data []byte) (int, []byte) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return i + 1, l
		}
	}
	return 0, nil
}

// window keeps the calls that start in [FromMs, ToMs) and puts their
// times on the replay's clock: from FromMs when given, else from the
// first kept call's start, divided by the speed.
func window(calls []Call, o Options) ([]Call, error) {
	var kept []Call
	for _, c := range calls {
		if (o.FromMs == nil || c.StartMs >= *o.FromMs) && (o.ToMs == nil || c.StartMs < *o.ToMs) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("--trace-from/--trace-to keep no call: the window [%s, %s) ms holds none of the trace's call starts, which run from %s to %s ms",
			bound(o.FromMs, "0"), bound(o.ToMs, "end"), fmtMs(calls[0].StartMs), fmtMs(calls[len(calls)-1].StartMs))
	}
	origin := kept[0].StartMs
	if o.FromMs != nil {
		origin = *o.FromMs
	}
	for i := range kept {
		c := &kept[i]
		c.seq = i
		c.StartMs = (c.StartMs - origin) / o.Speed
		c.Turns = slices.Clone(c.Turns)
		for j := range c.Turns {
			c.Turns[j].SpeakMs /= o.Speed
			c.Turns[j].PauseMs /= o.Speed
		}
	}
	return kept, nil
}

func bound(b *float64, none string) string {
	if b == nil {
		return none
	}
	return fmtMs(*b)
}

// Vocab is the range of token ids a Mooncake prompt is drawn in: [Lo, Hi).
type Vocab struct{ Lo, Hi int }

// VocabOf is the range used for a model of n tokens: its second quarter
// ([n/4, n/2)), clear of the special tokens tokenizers put at either end;
// n <= 0 (unknown) is taken as 32000, which every current tokenizer has.
func VocabOf(n int) Vocab {
	if n <= 0 {
		n = 32000
	}
	v := Vocab{Lo: n / 4, Hi: n / 2}
	if v.Hi <= v.Lo {
		v.Hi = v.Lo + 1
	}
	return v
}

// Prompt is a Mooncake turn's prompt as token ids: for each hash_id, that
// block's ids (BlockTokens), the last block cut so the whole is
// InputTokens long; a turn without hash_ids is one block of its own,
// drawn from its line. When InputTokens is more than the blocks hold, the
// last block is longer (its hash_id's ids go on: see BlockTokens); block
// 0 or less is DefaultBlock.
func (t Turn) Prompt(block int, v Vocab) []int {
	if t.InputTokens <= 0 {
		return nil
	}
	if len(t.HashIDs) == 0 {
		return drawTokens(uint64(t.Line), lineStream, t.InputTokens, v)
	}
	p := make([]int, 0, t.InputTokens)
	for j, n := range layout(t.InputTokens, len(t.HashIDs), block) {
		if n == 0 {
			break
		}
		p = append(p, BlockTokens(t.HashIDs[j], n, v)...)
	}
	return p
}

// BlockTokens are the n first token ids of the block of hash_id: the same
// ids for the same hash_id, block and vocabulary on every machine, and
// BlockTokens(h, n, v) is the start of BlockTokens(h, m, v) for n < m.
// v must hold an id (Hi > Lo).
func BlockTokens(hashID int64, n int, v Vocab) []int {
	return drawTokens(uint64(hashID), hashStream, n, v)
}

// The streams token ids are drawn from: a hash_id's block, a line's own
// prompt. Their seeds differ in this word, so no line's prompt is any
// hash_id's block.
const (
	hashStream = 0x9e3779b97f4a7c15
	lineStream = 0xd1b54a32d192ed03
)

// drawTokens are n ids in v from the PCG generator seeded (seed, stream):
// a fixed algorithm, each id from one 64-bit output.
func drawTokens(seed, stream uint64, n int, v Vocab) []int {
	if v.Hi <= v.Lo {
		panic(fmt.Sprintf("trace: vocabulary [%d, %d) holds no token id", v.Lo, v.Hi))
	}
	if n <= 0 {
		return []int{}
	}
	g := rand.NewPCG(seed, stream)
	span := uint64(v.Hi - v.Lo)
	ids := make([]int, n)
	for i := range ids {
		hi, _ := bits.Mul64(g.Uint64(), span)
		ids[i] = v.Lo + int(hi)
	}
	return ids
}

// layout is the lengths of the blocks of a prompt of input tokens over
// blocks hash_ids of block tokens each: full blocks, then the one where
// the prompt ends cut there, then none (0); the last hash_id's block
// takes what the others leave, so it may be longer than block.
func layout(input, blocks, block int) []int {
	if block <= 0 {
		block = DefaultBlock
	}
	lens := make([]int, blocks)
	left := input
	for j := range lens {
		n := min(block, left)
		if j == blocks-1 {
			n = left
		}
		lens[j] = n
		left -= n
	}
	return lens
}

// shared is the tokens of t's prompt an earlier line's prompt sent: its
// leading blocks whose hash_id an earlier line had, each as far as the
// longest of that hash_id's blocks sent before (block ids are prefixes
// of one stream), stopping at the first block not sent whole; seen, the
// longest block sent of each hash_id, is then updated with t's.
func shared(t Turn, block int, seen map[int64]int) int {
	lens := layout(t.InputTokens, len(t.HashIDs), block)
	n, open := 0, true
	for j, l := range lens {
		if l == 0 {
			break
		}
		h := t.HashIDs[j]
		if open {
			s := min(seen[h], l)
			n += s
			open = s == l
		}
		seen[h] = max(seen[h], l)
	}
	return n
}

// Timing is when the load engine makes a trace's requests due: call i
// (from 1) at Starts[i-1] since the replay began, with Turns[i-1] turns,
// and Think(call, turn) before turn (from 2), after the previous turn's
// end.
type Timing struct {
	Starts []time.Duration
	Turns  []int
	Think  func(call, turn int) time.Duration
}

// Timing is the trace's timing. Without a speaking caller (spoken false)
// a request is due when its caller stops speaking: the call's start plus
// the first turn's SpeakMs, and a later turn its PauseMs before plus its
// own SpeakMs; with one (spoken: the caller's audio is sent, taking its
// own time) a turn is due when its caller starts: the call's start, and a
// later turn the previous turn's PauseMs after its end.
//
// Starts never decrease: without a speaking caller a call that starts
// later may be due first (its caller spoke shorter), so Timing puts
// t.Calls in the order their first requests are due (ties in the trace's
// order), and call i is then t.Calls[i-1] and t.Turn's call i. Call it
// before handing t.Turn to anyone, not while they use it.
func (t *Trace) Timing(spoken bool) Timing {
	due := func(c Call) float64 {
		if spoken || len(c.Turns) == 0 {
			return c.StartMs
		}
		return c.StartMs + c.Turns[0].SpeakMs
	}
	slices.SortStableFunc(t.Calls, func(a, b Call) int {
		if da, db := due(a), due(b); da != db {
			if da < db {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
	calls := slices.Clone(t.Calls)
	tm := Timing{Starts: make([]time.Duration, len(calls)), Turns: make([]int, len(calls))}
	for i, c := range calls {
		tm.Starts[i] = duration(due(c))
		tm.Turns[i] = len(c.Turns)
	}
	tm.Think = func(call, turn int) time.Duration {
		if call < 1 || call > len(calls) || turn < 2 || turn > len(calls[call-1].Turns) {
			return 0
		}
		turns := calls[call-1].Turns
		ms := turns[turn-2].PauseMs
		if !spoken {
			ms += turns[turn-1].SpeakMs
		}
		return duration(ms)
	}
	return tm
}

// duration is ms as a Duration, to the nanosecond.
func duration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// Turn is turn (from 1) of call (from 1), nil when there is none.
func (t *Trace) Turn(call, turn int) *Turn {
	if call < 1 || call > len(t.Calls) || turn < 1 || turn > len(t.Calls[call-1].Turns) {
		return nil
	}
	return &t.Calls[call-1].Turns[turn-1]
}
