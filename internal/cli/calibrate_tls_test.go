package cli

import "testing"

// --tls: the server, a child process, serves https with the run's
// certificate (--tls-cert, --tls-key), and ttftlab (through Lua) and
// ttftlab-go read every chunk over it.
func TestCalibrateTLSChildServer(t *testing.T) {
	t.Setenv("TTFTLAB_AS_MAIN", "1")
	rep, table := calibrateCLI(t, "--tls", "--rate", "500", "--chunks", "50")
	calibrateOutputHas(t, table, "https", "ttftlab-go", "50/50", "ttftlab's stamps: kernel")
	if n := len(rep.Schedules[0].Clients); n != 2 {
		t.Fatalf("%d clients, want ttftlab and ttftlab-go", n)
	}
	for i, want := range []string{"ttftlab", "ttftlab-go"} {
		if c := rep.Schedules[0].Clients[i]; c.Client != want || c.Received != 50 || c.Failure != "" {
			t.Errorf("result %+v, want %s with every chunk", c, want)
		}
	}
}
