// Package trace reads recorded traffic for replay: Mooncake traces
// (JSONL: timestamp, input_length, output_length, hash_ids) and
// ttftlab's own call log (JSONL or CSV: a line per turn of a call), each
// checked whole before anything is replayed, an error naming the line and
// the field. It knows nothing of the load engine or of HTTP: it gives the
// calls, their turns and times, and the token ids of a Mooncake prompt.
package trace

import (
	"errors"
	"fmt"
	"io"
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
	// blocks whose hash_id an earlier kept line had: what a prefix cache
	// can hold of it when it arrives.
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
}

// Trace is a trace read whole and checked.
type Trace struct {
	Format Format
	// Path is the file as given; SHA256 its content's digest (hex).
	Path   string
	SHA256 string
	// Lines is the data lines read (before the window).
	Lines int
	// Calls are the kept calls, in start order; Requests their turns.
	Calls    []Call
	Requests int
	// Block is the hash_id block size the prompts and SharedTokens use.
	Block int
	// InputTokens and SharedTokens are the sums over the kept Mooncake
	// lines (0 for a call log).
	InputTokens, SharedTokens int
}

// LineError is a trace that cannot be replayed: the file, the line (from
// 1) and the field at fault ("" when the line as a whole is).
type LineError struct {
	Path  string
	Line  int
	Field string
	Msg   string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.Path, e.Line, e.Field, e.Msg)
}

var errTodo = errors.New("trace: not built yet")

// Read reads and checks the trace at path (see Parse).
func Read(path string, o Options) (*Trace, error) { return nil, errTodo }

// Parse reads and checks a whole trace named name from r: every line
// valid (JSON, or CSV with the call log's header), every field present
// and in range, times never going back; the first fault is a
// *LineError. Then the window and the speed are applied.
func Parse(r io.Reader, name string, o Options) (*Trace, error) { return nil, errTodo }

// Vocab is the range of token ids a Mooncake prompt is drawn in: [Lo, Hi).
type Vocab struct{ Lo, Hi int }

// VocabOf is the range used for a model of n tokens: its second quarter
// ([n/4, n/2)), clear of the special tokens tokenizers put at either end;
// n <= 0 (unknown) is taken as 32000, which every current tokenizer has.
func VocabOf(n int) Vocab { return Vocab{} }

// Prompt is a Mooncake turn's prompt as token ids: for each hash_id, that
// block's ids (BlockTokens), the last block cut so the whole is
// InputTokens long; a turn without hash_ids is one block of its own,
// drawn from its line.
func (t Turn) Prompt(block int, v Vocab) []int { return nil }

// BlockTokens are the n first token ids of the block of hash_id: the same
// ids for the same hash_id, block and vocabulary on every machine.
func BlockTokens(hashID int64, n int, v Vocab) []int { return nil }

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
func (t *Trace) Timing(spoken bool) Timing { return Timing{} }

// Turn is turn (from 1) of call (from 1), nil when there is none.
func (t *Trace) Turn(call, turn int) *Turn { return nil }
