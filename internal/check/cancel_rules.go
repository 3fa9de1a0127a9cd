package check

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"

	"ttftlab/internal/artifact"
)

// logCancelLine is what llama-server logs when it drops a task whose client
// went away ("srv stop: cancel task, id_task = N").
const logCancelLine = "cancel task"

// cancelRules check that the cut request really was cut and the server
// noticed, in every repetition the file records.
var cancelRules = []rule{
	{"cancel runs", []string{"cancel.json"}, func(l *lab) error {
		c := l.cancel
		return l.checkRuns(len(c.Discarded), runsOf{name: "cancel.json", repeat: c.Repeat, runs: len(c.Runs), top: c, first: firstRun(c.Runs)})
	}},
	{"cancel cut short", []string{"cancel.json"}, func(l *lab) error {
		return eachRepetition(l, l.cancel.Repetitions(), func(c artifact.Cancel) (string, error) {
			if !(c.ReceivedTokens >= 1) {
				return "", fmt.Errorf("received_tokens is %s, want at least 1: nothing streamed before the cut", num(c.ReceivedTokens))
			}
			if !(c.ReceivedTokens < c.MaxTokens) {
				return "", fmt.Errorf("received_tokens %s is not below max_tokens %s: the answer ran to its end, so nothing was cancelled; cut earlier or raise max_tokens",
					num(c.ReceivedTokens), num(c.MaxTokens))
			}
			return fmt.Sprintf("%s of %s tokens", num(c.ReceivedTokens), num(c.MaxTokens)), nil
		})
	}},
	{"cancel closed_at_ms > 0", []string{"cancel.json"}, func(l *lab) error {
		return eachRepetition(l, l.cancel.Repetitions(), func(c artifact.Cancel) (string, error) {
			if !(c.ClosedAtMs > 0) {
				return "", fmt.Errorf("closed_at_ms is %s, want > 0", num(c.ClosedAtMs))
			}
			return fmt.Sprintf("closed at %s ms", num(c.ClosedAtMs)), nil
		})
	}},
	{"cancel evidence", []string{"cancel.json"}, func(l *lab) error {
		// The evidence is the step's: its repetitions say it as its top
		// level does.
		evidence := l.cancel.Evidence
		return eachRepetition(l, l.cancel.Repetitions(), func(c artifact.Cancel) (string, error) {
			if c.Evidence != evidence {
				return "", fmt.Errorf("evidence is %q, but the top level's is %q", c.Evidence, evidence)
			}
			switch c.Evidence {
			case "", "slots", "metrics":
				if c.SlotIdleAfterMs == nil {
					return "", fmt.Errorf("slot_idle_after_ms is null, yet the evidence is %q: the server's own view must give the time it went idle", orSlots(c.Evidence))
				}
				return "from " + orSlots(c.Evidence), nil
			case "client":
				if c.SlotIdleAfterMs != nil {
					return "", fmt.Errorf("evidence is \"client\" but slot_idle_after_ms is %s: the client alone cannot see the server go idle", num(*c.SlotIdleAfterMs))
				}
				if c.NoEvidence == "" {
					return "", fmt.Errorf("evidence is \"client\" without no_evidence saying why the server showed none")
				}
				return "", skip("client-side only: %s", c.NoEvidence)
			}
			return "", fmt.Errorf("evidence %q is none of slots, metrics, client", c.Evidence)
		})
	}},
	{"cancel slot idle >= 0", []string{"cancel.json"}, func(l *lab) error {
		return eachRepetition(l, l.cancel.Repetitions(), func(c artifact.Cancel) (string, error) {
			v := c.SlotIdleAfterMs
			if v == nil {
				return "", skip("cancel.json has no slot_idle_after_ms (evidence %q)", l.cancel.Evidence)
			}
			if !(*v >= 0) {
				return "", fmt.Errorf("slot_idle_after_ms is %s, want >= 0", num(*v))
			}
			return fmt.Sprintf("idle %s ms after the close (%s)", num(*v), orSlots(l.cancel.Evidence)), nil
		})
	}},
	{"cancel flags", []string{"cancel.json"}, func(l *lab) error {
		return eachRepetition(l, l.cancel.Repetitions(), func(c artifact.Cancel) (string, error) {
			if c.Done == nil && c.Cut == nil {
				return "", skip("cancel.json has neither done nor cut")
			}
			if c.Done != nil && *c.Done {
				return "", fmt.Errorf("done is true: the stream reached data: [DONE], so it was not cut")
			}
			if c.Cut != nil && !*c.Cut {
				return "", fmt.Errorf("cut is false: the client never closed the connection")
			}
			return "cut, not done", nil
		})
	}},
	{"cancel task in server log", nil, checkServerLog},
}

// orSlots names the evidence of a file written before evidence was named:
// /slots, the only one there was.
func orSlots(e string) string {
	if e == "" {
		return "slots"
	}
	return e
}

// checkServerLog looks for the cancel line in the given log, only in the
// lines this run wrote (after cancel.json's log_from), so an earlier run's
// cut never passes for this one; without a log it trusts cancel.json's
// log_cancel_task when the lab recorded one.
func checkServerLog(l *lab) error {
	if l.serverLog != "" {
		return searchServerLog(l)
	}
	if err := l.unusable("cancel.json"); err != nil {
		return err
	}
	v := l.cancel.LogCancelTask
	if v == nil {
		return skip("no server log given and cancel.json has no log_cancel_task")
	}
	if !*v {
		return fmt.Errorf("cancel.json log_cancel_task is false: the lab found no %q line in the server log", logCancelLine)
	}
	return l.pass("cancel.json log_cancel_task true")
}

func searchServerLog(l *lab) error {
	f, err := os.Open(l.serverLog)
	if err != nil {
		return fmt.Errorf("cannot read server log %s: %w", l.serverLog, err)
	}
	defer f.Close()
	if err := l.unusable("cancel.json"); err != nil {
		return err
	}
	from := l.cancel.LogFrom
	if from == nil {
		return fmt.Errorf("cancel.json has no log_from, so nothing tells which lines of %s this run wrote; "+
			"run the lab with the server log known (ttftlab starts the server, or pass it) so the cancel step marks where its lines begin", l.serverLog)
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if ino := inodeOf(st); from.Inode != 0 && ino != 0 && float64(ino) != from.Inode {
		// A later server start on the same port keeps the previous log
		// as .1: say so when that is this run's.
		if prev, err := os.Stat(l.serverLog + ".1"); err == nil && float64(inodeOf(prev)) == from.Inode {
			return fmt.Errorf("%s is a later server's log: a server started since this run moved this run's log to %s.1; "+
				"check with --server-log %s.1, or without --server-log (cancel.json's log_cancel_task then counts)", l.serverLog, l.serverLog, l.serverLog)
		}
		return fmt.Errorf("%s is not the log this run's evidence was taken from (%s, since replaced: a new server start keeps the old log as .log.1, "+
			"an older one is gone); check with the log of the server that served this run, or without --server-log (cancel.json's log_cancel_task then counts)", l.serverLog, from.Path)
	}
	if float64(st.Size()) < from.Offset {
		return fmt.Errorf("%s holds %d bytes, fewer than where this run's lines began (%.0f): it is another log", l.serverLog, st.Size(), from.Offset)
	}
	if _, err := f.Seek(int64(from.Offset), io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(logCancelLine)) {
		return fmt.Errorf("no %q line in the %d bytes %s got after this run's cut began (offset %.0f); pass the log of the llama-server that served this lab run",
			logCancelLine, len(data), l.serverLog, from.Offset)
	}
	return l.pass("found in %s after offset %.0f", l.serverLog, from.Offset)
}

func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}
