package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/servers"
)

// serverKind says which kind of server the lease is on: llama.cpp for one
// ttftlab started, else what servers.Detect finds at the URL, printed once
// (on stderr) so the user knows what the run will measure and how. Nothing answering
// leaves it unknown ("").
func (e *env) serverKind(ctx context.Context, l *llamaserver.Lease) servers.Detection {
	switch {
	case l == nil:
		return servers.Detection{}
	case l.Tracked != nil:
		return servers.Detection{Kind: servers.LlamaCpp, Evidence: "ttftlab started llama-server"}
	case !l.Answered:
		return servers.Detection{}
	}
	// The paths the probe and the key check asked are not asked again.
	d := servers.Detect(e.waiting(ctx, l.URL), l.Getter())
	// On stderr, with the other notes about how the run is set up: a
	// script's standard output stays its own.
	fmt.Fprintf(e.Err, "server kind: %s (%s)\n", d.Kind, d.Evidence)
	return d
}

// waiting is ctx with the console line a round of probes gives when the
// server at url has not answered for a while (servers.NoteAfter): said
// once, on stderr, so a silent server never looks like a hung ttftlab.
func (e *env) waiting(ctx context.Context, url string) context.Context {
	var once sync.Once
	return servers.WithWaiting(ctx, func(paths []string) {
		once.Do(func() {
			fmt.Fprintf(e.Err, "waiting for %s to answer GET %s (at most %v) ...\n", url, strings.Join(paths, ", "), servers.ProbeTimeout)
		})
	})
}
