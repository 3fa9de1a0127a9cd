package installer

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBesideFilesAreSourced: the files a script sources from its own
// folder are written beside it, as the install scripts source
// private-apt.sh.
// Fails before this change: the script ran alone in its folder.
func TestBesideFilesAreSourced(t *testing.T) {
	t.Setenv("TTFTLAB_TEST_INSTALLER", "")
	script := Script{Name: "install-x.sh", What: "x", Env: "TTFTLAB_TEST_INSTALLER",
		Text:   []byte(". \"$(dirname \"$0\")/lib.sh\"\nsay_path\n"),
		Beside: map[string][]byte{"lib.sh": []byte("say_path() { echo \"install-x: from lib\" >&2; echo /opt/x/bin/x; }\n")}}
	var log bytes.Buffer
	path, err := Run(context.Background(), script, false, &log)
	if err != nil || path != "/opt/x/bin/x" || !strings.Contains(log.String(), "install-x: from lib") {
		t.Fatalf("Run: %q, %v, log %q", path, err, log.String())
	}
}
