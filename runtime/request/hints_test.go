package request

import (
	"net"
	"os"
	"syscall"
	"testing"
	"ttftlab/runtime/luatest"

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
		luatest.MustContain(t, h, "ulimit -n", "fewer requests at once")
		luatest.MustNotContain(t, h, "start llama-server")
	}
	refused := &stream.Error{Kind: stream.KindConnect, Err: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	luatest.MustContain(t, streamHint(refused, "--server"), "check --server, or start llama-server there")
}
