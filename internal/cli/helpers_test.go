package cli

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// standInName is the name the test binary answers to as a stand-in
// llama-server (see TestMain and standInServer).
const standInName = "llama-server"

// standInServer returns the path of a stand-in llama-server: a link named
// llama-server to this test binary, which TestMain then runs as
// serveStandIn. It answers /health and ignores SIGTERM, so stopping it
// takes the full grace period.
func standInServer(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), standInName)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// serveStandIn is the stand-in llama-server's main: it serves
// {"status":"ok"} on every path at 127.0.0.1:PORT (--port PORT, the other
// arguments ignored) until killed, with SIGTERM ignored.
func serveStandIn(args []string) int {
	signal.Ignore(syscall.SIGTERM)
	port := ""
	for i, a := range args {
		if a == "--port" && i+1 < len(args) {
			port = args[i+1]
		}
	}
	if port == "" {
		fmt.Fprintln(os.Stderr, "stand-in llama-server: no --port")
		return 2
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand-in llama-server:", err)
		return 1
	}
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	}))
	fmt.Fprintln(os.Stderr, "stand-in llama-server:", err)
	return 1
}
