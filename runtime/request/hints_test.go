package request

import (
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"ttftlab/internal/stream"
)

// TestConnectHintOutOfFiles: a dial that fails because this process has
// no file descriptor left (a large --concurrency under a low ulimit -n)
// is not blamed on the server ("check --server, or start llama-server
// there"), but on the limit, which is the client machine's.
func TestConnectHintOutOfFiles(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}
		err := &stream.Error{Kind: stream.KindConnect, URL: "http://127.0.0.1:8080/v1/chat/completions", Err: dial}
		h := streamHint(err, "--server")
		mustContain(t, h, "ulimit -n", "fewer requests at once")
		mustNotContain(t, h, "start llama-server")
	}
	refused := &stream.Error{Kind: stream.KindConnect, Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	mustContain(t, streamHint(refused, "--server"), "check --server, or start llama-server there")
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("%q does not contain %q", got, w)
		}
	}
}

func mustNotContain(t *testing.T, got string, unwanted string) {
	t.Helper()
	if strings.Contains(got, unwanted) {
		t.Fatalf("%q contains %q", got, unwanted)
	}
}
