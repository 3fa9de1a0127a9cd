package llamaserver

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
)

func TestStateDirPrecedence(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", "/x/state")
	t.Setenv("XDG_STATE_HOME", "/x/xdg")
	if d, _ := StateDir(); d != "/x/state" {
		t.Errorf("with TTFTLAB_STATE: %s", d)
	}
	t.Setenv("TTFTLAB_STATE", "")
	if d, _ := StateDir(); d != "/x/xdg/ttftlab" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/x/home")
	if d, _ := StateDir(); d != "/x/home/.local/state/ttftlab" {
		t.Errorf("with HOME only: %s", d)
	}
}

func TestStateRoundTripPerPort(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	a := State{PID: 11, Port: 8081, URL: "http://127.0.0.1:8081", Model: "/m.gguf", Args: []string{"llama-server", "-m", "/m.gguf"},
		LogPath: "/l.log", Started: time.Unix(1700000000, 0).UTC()}
	b := a
	b.PID, b.Port, b.URL = 12, 8082, "http://127.0.0.1:8082"
	reg, err := OpenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []State{a, b} {
		if err := reg.Save(st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := reg.Load(8081)
	if err != nil || got == nil || got.PID != 11 || got.URL != a.URL || strings.Join(got.Args, " ") != "llama-server -m /m.gguf" || !got.Started.Equal(a.Started) {
		t.Fatalf("LoadState(8081) = %+v, %v", got, err)
	}
	if ports, _ := reg.Ports(); len(ports) != 2 || ports[0] != 8081 || ports[1] != 8082 {
		t.Errorf("TrackedPorts = %v", ports)
	}
	if st := reg.ForURL("http://127.0.0.1:8082"); st == nil || st.PID != 12 {
		t.Errorf("StateForURL = %+v", st)
	}
	if err := reg.forget(8081); err != nil {
		t.Fatal(err)
	}
	if got, err := reg.Load(8081); got != nil || err != nil {
		t.Errorf("after forget: %+v, %v", got, err)
	}
	if err := reg.forget(8081); err != nil {
		t.Errorf("forgetting twice: %v", err)
	}
	if p := reg.DefaultPort(); p != 8082 {
		t.Errorf("DefaultPort with one record = %d, want 8082", p)
	}
}

func TestDamagedStateSaysSo(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TTFTLAB_STATE", dir)
	os.MkdirAll(filepath.Join(dir, "servers"), 0o755)
	os.WriteFile(filepath.Join(dir, "servers", "9000.json"), []byte("{half"), 0o644)
	reg, _ := OpenRegistry()
	if _, err := reg.Load(9000); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("err = %v", err)
	}
}

func TestCheckModel(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.gguf")
	os.WriteFile(good, []byte("GGUF\x03\x00\x00\x00"), 0o644)
	short := filepath.Join(dir, "short.gguf")
	os.WriteFile(short, []byte("GG"), 0o644)
	other := filepath.Join(dir, "model.bin")
	os.WriteFile(other, []byte("PK\x03\x04 zip"), 0o644)
	cases := []struct {
		path, want string
	}{
		{good, ""},
		{"", "no model file given"},
		{filepath.Join(dir, "missing.gguf"), "no such file"},
		{short, "too short to be a GGUF file"},
		{other, "is not a GGUF file"},
	}
	for _, c := range cases {
		err := CheckModel(c.path)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckModel(%q) = %v, want %q", c.path, err, c.want)
		}
	}
}

func TestArgsKeepTheReferenceSetup(t *testing.T) {
	got := strings.Join(Options{Model: "m.gguf", Port: 9000, Threads: 3, Extra: []string{"--metrics"}}.Args(), " ")
	want := "-m m.gguf --host 127.0.0.1 --port 9000 -c 4096 -np 1 --cache-ram 0 -t 3 --metrics"
	if got != want {
		t.Errorf("Args = %q, want %q", got, want)
	}
	if th := DefaultThreads(); th < 1 {
		t.Errorf("DefaultThreads = %d", th)
	}
}

// TestShownArgs: the value of each secret option is redacted, in both
// forms; the rest, --api-key-file's path included, and the slice given
// are left as they were.
func TestShownArgs(t *testing.T) {
	args := []string{"llama-server", "-m", "m.gguf", "--api-key", "sk-a1b2", "--api-key=sk-c3d4", "-hft", "hf_x9",
		"--api-key-file", "/run/keys", "--metrics"}
	got := strings.Join(ShownArgs(args), " ")
	want := "llama-server -m m.gguf --api-key [redacted] --api-key=[redacted] -hft [redacted] --api-key-file /run/keys --metrics"
	if got != want || args[4] != "sk-a1b2" {
		t.Errorf("ShownArgs = %q, want %q (the input kept)", got, want)
	}
}

// TestExplicitPathWins: a path given (--llama-server) wins over
// LLAMA_SERVER, and one that is not a program is an error saying so.
func TestExplicitPathWins(t *testing.T) {
	dir := t.TempDir()
	explicit := filepath.Join(dir, "explicit")
	env := filepath.Join(dir, "env")
	for _, p := range []string{explicit, env} {
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	}
	t.Setenv("LLAMA_SERVER", env)
	if got, err := Find(explicit); err != nil || got != explicit {
		t.Errorf("Find(explicit) = %q, %v", got, err)
	}
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, []byte("x"), 0o644)
	if _, err := Find(notExec); err == nil || !strings.Contains(err.Error(), "llama-server from the given path: "+notExec+" is not an executable") {
		t.Errorf("a non-executable file: %v", err)
	}
}

// TestNotFoundNamesTheInstallCommand: with no llama-server anywhere, the
// error (which the end-to-end tests show when they skip) names the
// commands that install it.
func TestNotFoundNamesTheInstallCommand(t *testing.T) {
	t.Setenv("LLAMA_SERVER", "")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("TTFTLAB_LLAMA_PREFIX", t.TempDir())
	_, err := Find("")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find = %v, want ErrNotFound", err)
	}
	for _, want := range []string{"go run . server install", "go run . lab", "LLAMA_SERVER="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestFindOrInstallKeepsAWrongExplicitPath: a wrong --llama-server is
// the user's choice to fix; nothing is installed in its place.
func TestFindOrInstallKeepsAWrongExplicitPath(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "install.sh")
	if err := os.WriteFile(script, []byte("touch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(InstallerEnv, script)
	t.Setenv("LLAMA_SERVER", "")
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := FindOrInstall(context.Background(), missing, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v, want the given path refused", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the installer ran although a path was given")
	}
}

// TestFailedStartKeepsTheKeyOut: a llama-server that quotes the key it
// was given as it refuses to start (as it does for --api-key=KEY) leaves
// the key neither in the error, which shows the log's last lines, nor in
// the log file ttftlab made for it.
func TestFailedStartKeepsTheKeyOut(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "llama-server")
	script := "#!/bin/sh\nfor a in \"$@\"; do case $a in --api-key*|sk-*) echo \"error: invalid argument: $a\";; esac; done\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.gguf")
	os.WriteFile(model, []byte("GGUF\x03\x00\x00\x00"), 0o644)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	for _, extra := range [][]string{{"--api-key=sk-eq5e3ret"}, {"--api-key", "sk-sp5e3ret"}} {
		logPath := filepath.Join(dir, "server.log")
		_, err := Start(context.Background(), Options{Binary: bin, Model: model, Port: port, LogPath: logPath,
			RotateLog: true, Extra: extra, Timeout: 10 * time.Second})
		if err == nil {
			t.Fatal("Start of a server that exits: no error")
		}
		secret := strings.TrimPrefix(extra[len(extra)-1], "--api-key=")
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "invalid argument") {
			t.Errorf("%v: error %q: want the log's lines without the key", extra, err)
		}
		data, _ := os.ReadFile(logPath)
		if strings.Contains(string(data), secret) || !strings.Contains(string(data), endpoint.Redacted) {
			t.Errorf("%v: log %q: want the key redacted", extra, data)
		}
	}
}
