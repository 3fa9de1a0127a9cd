//go:build !linux

package stream

import (
	"context"
	"net/url"
	"time"
)

// rawSupported is false: off Linux every request takes net/http
// (SourceNetpoll).
const rawSupported = false

func (r *run) executeRaw(context.Context, *url.URL, []byte, Wire) error {
	panic("stream: the raw-socket client is Linux-only")
}

// ReaderCPU is 0: there are no reader threads off Linux.
func ReaderCPU() time.Duration { return 0 }
