package servers

import (
	"context"
	"sync"
)

// Remembering is g answering each path once: known (a probe's Asked) and
// every answer it reads are kept and given again to a later GET of the
// path. Right after a server was found ready, the model list, the key
// check and the kind detection ask some of the paths the probe asked;
// against a hosted API each request may count. A request that failed is
// not kept.
func Remembering(g Getter, known map[string]Answer) Getter {
	var mu sync.Mutex
	got := make(map[string]Answer, len(known))
	for p, a := range known {
		got[p] = a
	}
	return func(ctx context.Context, path string) (int, []byte, error) {
		mu.Lock()
		a, ok := got[path]
		mu.Unlock()
		if ok {
			return a.Status, a.Body, nil
		}
		status, body, err := g(ctx, path)
		if err == nil {
			mu.Lock()
			got[path] = Answer{Status: status, Body: body}
			mu.Unlock()
		}
		return status, body, err
	}
}
