package cli

import (
	"context"
	"fmt"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
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
	ep := l.Endpoint
	d := servers.Detect(ctx, func(ctx context.Context, path string) (int, []byte, error) {
		return stream.Get(ctx, ep.URL(path), stream.GetOptions{Header: ep.Headers(), TLS: ep.TLS})
	})
	// On stderr, with the other notes about how the run is set up: a
	// script's standard output stays its own.
	fmt.Fprintf(e.Err, "server kind: %s (%s)\n", d.Kind, d.Evidence)
	return d
}
