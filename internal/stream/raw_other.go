//go:build !linux

package stream

import (
	"context"
	"net/url"
)

func (r *run) executeRaw(context.Context, *url.URL, []byte, Wire, options) error {
	panic("stream: the raw-socket client is Linux-only")
}
