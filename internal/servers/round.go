package servers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ProbeTimeout bounds a round of probes as a whole: a health probe's
// (/health, then the other kinds' paths: Others) and Detect's, however
// many paths each asks. A server that takes a request and never answers
// holds a command this long, not a request timeout per path. (A variable
// so that tests of stalling servers need not wait.)
var ProbeTimeout = 3 * time.Second

// NoteAfter is how long a round may wait without any answer before it
// says what it waits for (WithWaiting).
var NoteAfter = time.Second

type waitingKey struct{}

// WithWaiting returns ctx carrying note: a round of probes under ctx that
// has had no answer for NoteAfter calls it with the paths it still waits
// for. The caller, who knows the URL and the console, words it.
func WithWaiting(ctx context.Context, note func(paths []string)) context.Context {
	return context.WithValue(ctx, waitingKey{}, note)
}

// Round bounds one round of probes: ctx with ProbeTimeout's deadline.
func Round(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, ProbeTimeout)
}

// Stalled reports whether a probe under round failed because the server
// held it: the request was taken and no whole answer came (the Getter's
// error says so by an Unanswered() bool method, as stream's errors do),
// and the deadline that passed is the round's, not the caller's context
// ending. A server that could not be reached in time never stalled.
func Stalled(round context.Context, err error) bool {
	var u interface{ Unanswered() bool }
	return errors.As(err, &u) && u.Unanswered() && errors.Is(round.Err(), context.DeadlineExceeded)
}

// StalledReport is a server that took the request at path and gave no
// whole answer within the round: none at all (status 0), or a head whose
// body did not end (a stream where a short answer was asked for).
func StalledReport(path string, status int) HealthReport {
	r := HealthReport{Answered: true, Stalled: true, Path: path, Status: status}
	if status == 0 {
		r.Summary = fmt.Sprintf("never answered GET %s within %v", path, ProbeTimeout)
	} else {
		r.Summary = fmt.Sprintf("answered GET %s with HTTP %d and a body that did not end within %v", path, status, ProbeTimeout)
	}
	return r
}

// reply is one probe's outcome.
type reply struct {
	status int
	body   []byte
	err    error
}

// askAll GETs every path at once and returns when all have ended (each
// bounded by ctx, a Round). Paths still unanswered after NoteAfter are
// told to ctx's waiting note.
func askAll(ctx context.Context, g Getter, paths ...string) map[string]reply {
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		out     = make(map[string]reply, len(paths))
		pending = slices.Clone(paths)
	)
	for _, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body, err := g(ctx, p)
			mu.Lock()
			out[p] = reply{status, body, err}
			pending = slices.DeleteFunc(pending, func(q string) bool { return q == p })
			mu.Unlock()
		}()
	}
	if note, ok := ctx.Value(waitingKey{}).(func([]string)); ok && note != nil {
		// noteMu keeps the note from being given once askAll has
		// returned: the caller may be writing to the same console.
		var noteMu sync.Mutex
		ended := false
		t := time.AfterFunc(NoteAfter, func() {
			noteMu.Lock()
			defer noteMu.Unlock()
			mu.Lock()
			// Silence: none of the paths has answered yet.
			waiting := !ended && len(pending) == len(paths)
			p := slices.Clone(pending)
			mu.Unlock()
			if waiting {
				note(p)
			}
		})
		defer func() {
			t.Stop()
			noteMu.Lock()
			ended = true
			noteMu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// Ask is one probe of a round (ctx): a GET of path through g, told to
// ctx's waiting note when it has not answered after NoteAfter.
func Ask(ctx context.Context, g Getter, path string) (status int, body []byte, err error) {
	a := askAll(ctx, g, path)[path]
	return a.status, a.body, a.err
}
