package servers

import (
	"context"
	"errors"
	"testing"
)

// TestRememberingAsksEachPathOnce: a path the probe asked is answered from
// its answer, a new path is asked once and then given again, and a request
// that failed is asked anew.
func TestRememberingAsksEachPathOnce(t *testing.T) {
	asked := map[string]int{}
	fail := true
	g := Remembering(func(_ context.Context, path string) (int, []byte, error) {
		asked[path]++
		if path == "/flaky" && fail {
			fail = false
			return 0, nil, errors.New("connection reset")
		}
		return 200, []byte(path), nil
	}, map[string]Answer{"/v1/models": {Status: 401, Body: []byte("no key")}})
	ctx := context.Background()
	for range 3 {
		if c, b, err := g(ctx, "/v1/models"); c != 401 || string(b) != "no key" || err != nil {
			t.Fatalf("/v1/models: %d %q %v, want the probe's 401", c, b, err)
		}
		if c, b, err := g(ctx, "/props"); c != 200 || string(b) != "/props" || err != nil {
			t.Fatalf("/props: %d %q %v", c, b, err)
		}
	}
	if _, _, err := g(ctx, "/flaky"); err == nil {
		t.Fatal("/flaky: the first request's failure was not passed on")
	}
	if c, _, err := g(ctx, "/flaky"); c != 200 || err != nil {
		t.Fatalf("/flaky again: %d %v, want it asked anew", c, err)
	}
	if asked["/v1/models"] != 0 || asked["/props"] != 1 || asked["/flaky"] != 2 {
		t.Errorf("asked %v, want /v1/models never, /props once, /flaky twice", asked)
	}
}
