package calibrate

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"

	"ttftlab/internal/monoclock"
	"ttftlab/internal/stream"
)

// TTFTLabGo names the second ttftlab client in results: the stream
// package called from Go, chunks kept, no Lua and no on_chunk; its only
// callback samples the costs at the checkpoints. It shows what the stream
// path itself costs per chunk, without the script's callback on top.
const TTFTLabGo = "ttftlab-go"

// runGoClient streams from url with stream.Do and returns the arrival
// stamps on CLOCK_MONOTONIC, the costs and the stamps' source.
func runGoClient(ctx context.Context, url string, chunks int, o Options, m monoclock.Mapping) ([]int64, *Cost, string, error) {
	smp := newSampler(chunks)
	var conf *tls.Config
	if o.TLS != nil {
		conf = o.TLS.Cert.ClientConfig()
	}
	res, err := stream.Do(ctx, stream.Request{URL: url, Body: []byte(fmt.Sprintf(`{"stream":true,"max_tokens":%d}`, chunks)),
		Wire: o.Wire, NoKernelStamps: o.NoKernelStamps, TLS: conf,
		OnChunk: func(c stream.Chunk) (bool, error) { smp.at(c.Index); return true, nil }})
	arrive := make([]int64, chunks+1)
	if !res.Info.T0.IsZero() {
		base := m.Mono(res.Info.T0)
		for _, c := range res.Chunks {
			if c.Index >= 1 && c.Index <= chunks {
				arrive[c.Index] = base + int64(math.Round(c.TMs*1e6))
			}
		}
	}
	if err == nil && !res.Info.Done {
		err = fmt.Errorf("the stream ended without data: [DONE]")
	}
	return arrive, smp.cost(), res.Info.StampSource.String(), err
}
