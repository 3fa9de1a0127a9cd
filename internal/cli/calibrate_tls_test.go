package cli

import "testing"

// --tls: the server, a child process, serves https with the run's
// certificate (--tls-cert, --tls-key), and ttftlab-go reads every chunk
// over it.
func TestCalibrateTLSChildServer(t *testing.T) {
	t.Setenv("TTFTLAB_AS_MAIN", "1")
	rep, table := calibrateCLI(t, "--tls", "--rate", "500", "--chunks", "50")
	calibrateOutputHas(t, table, "https", "ttftlab-go", "50/50", "ttftlab's stamps: kernel")
	if n := len(rep.Schedules[0].Clients); n != 1 {
		t.Fatalf("%d clients, want ttftlab-go alone", n)
	}
	if c := rep.Schedules[0].Clients[0]; c.Client != "ttftlab-go" || c.Received != 50 || c.Failure != "" {
		t.Errorf("result %+v", c)
	}
}
