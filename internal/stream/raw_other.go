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

// PollerCPU is 0: there is no poller thread off Linux.
func PollerCPU() time.Duration { return 0 }
