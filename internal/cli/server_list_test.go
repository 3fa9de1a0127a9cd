package cli

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ttftlab/internal/llamaserver"
)

// TestServerListEveryTracked: with a real server on one port and a stale
// record on another, `server list` shows both, and `server status`
// without --port lists them instead of asking port 8080, where nothing
// runs. Before `server list` existed, status said "no server started by
// ttftlab on port 8080" here.
func TestServerListEveryTracked(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	p := strconv.Itoa(port)
	if code, out, errOut := runCLI("server", "up", "--model", model, "--port", p); code != 0 {
		t.Fatalf("server up exited %d:\n%s%s", code, out, errOut)
	}
	defer runCLI("server", "down", "--port", p)
	stalePort, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	st := llamaserver.State{PID: gone.Process.Pid, Port: stalePort, URL: fmt.Sprintf("http://127.0.0.1:%d", stalePort)}
	if err := testRegistry(t).Save(st); err != nil {
		t.Fatal(err)
	}

	live := regexp.MustCompile(`(?m)^` + p + ` +\d+ +alive +ok +`)
	stale := regexp.MustCompile(`(?m)^` + strconv.Itoa(stalePort) + ` +\d+ +gone +- +`)
	code, out, _ := runCLI("server", "list")
	if code != 0 || !live.MatchString(out) || !stale.MatchString(out) {
		t.Errorf("server list exited %d, want both servers:\n%s", code, out)
	}
	code, out, _ = runCLI("server", "status")
	if code != statusStale || !live.MatchString(out) || !stale.MatchString(out) || strings.Contains(out, "8080") {
		t.Errorf("server status without --port exited %d, want %d listing both:\n%s", code, statusStale, out)
	}
	if code, _, _ := runCLI("server", "down", "--port", strconv.Itoa(stalePort)); code != 0 {
		t.Errorf("down of the stale record exited %d", code)
	}
	// One server left: status without --port is that server's.
	if code, out, _ := runCLI("server", "status"); code != 0 || !strings.Contains(out, "health:  ok") {
		t.Errorf("status with one server exited %d:\n%s", code, out)
	}
}

// TestServerListNone says where the state lives when nothing is tracked.
func TestServerListNone(t *testing.T) {
	serverTestEnv(t)
	code, out, _ := runCLI("server", "list")
	if code != 0 || !strings.Contains(out, "no server started by ttftlab is tracked") {
		t.Errorf("server list exited %d:\n%s", code, out)
	}
}
