package rundir

import (
	"testing"

	"ttftlab/internal/artifact"
)

func sample(level, t float64, run *float64) artifact.LoadServerSample {
	return artifact.LoadServerSample{Level: level, ServerSample: artifact.ServerSample{TMs: t, RunMs: run}}
}

// TestServerTimeline: t_ms restarts with each level (as load writes it):
// without run_ms the levels are laid end to end; with run_ms, it is used.
func TestServerTimeline(t *testing.T) {
	l := &Load{Server: []artifact.LoadServerSample{
		sample(1, 0, nil), sample(1, 250, nil), sample(1, 500, nil),
		sample(2, 10, nil), sample(2, 260, nil),
		sample(4, 5, nil),
	}}
	run, bands := l.ServerTimeline()
	want := []float64{0, 250, 500, 750, 1000, 1250}
	for i := range want {
		if run[i] != want[i] {
			t.Errorf("sample %d at %g on the run clock, want %g", i, run[i], want[i])
		}
	}
	if len(bands) != 3 || bands[1].From != 750 || bands[1].To != 1000 || bands[2].Level != 4 {
		t.Errorf("bands %+v", bands)
	}
	r := func(v float64) *float64 { return &v }
	l.Server = []artifact.LoadServerSample{sample(1, 0, r(3)), sample(2, 0, r(4000)), sample(2, 250, r(4250))}
	run, bands = l.ServerTimeline()
	if run[1] != 4000 || run[2] != 4250 || bands[1].From != 4000 {
		t.Errorf("run_ms not used: %v %+v", run, bands)
	}
}
