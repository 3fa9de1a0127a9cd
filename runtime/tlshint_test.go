package runtime

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStreamTLSHintNamesTheCause: a script's stream() to an https server
// whose certificate is not trusted gets the certificate's way out, not
// "start llama-server there". Fails before this change: the connection
// hint of a server that is not there.
func TestStreamTLSHintNamesTheCause(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	vm, _ := testVM(t, Config{Server: srv.URL})
	err := vm.RunString("stream({{role = 'user', content = 'Hi'}})", "tls.lua")
	if err == nil || !strings.Contains(err.Error(), "trust the server's CA: --ca-cert FILE.pem") ||
		strings.Contains(err.Error(), "start llama-server there") {
		t.Fatalf("err = %v, want the CA hint", err)
	}
}
