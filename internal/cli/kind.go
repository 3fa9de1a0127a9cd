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
// so the user knows what the run will measure and how. Nothing answering
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
	d := servers.Detect(ctx, stream.Get, l.URL)
	fmt.Fprintf(e.Out, "server kind: %s (%s)\n", d.Kind, d.Evidence)
	return d
}
