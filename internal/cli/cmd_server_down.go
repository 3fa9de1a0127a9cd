package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/scripts"
)

func serverDown(args []string, stdout, stderr io.Writer) int {
	p, st, code := portState("down", args, stderr)
	if code >= 0 {
		return code
	}
	if st == nil {
		fmt.Fprintf(stdout, "no server started by ttftlab on port %d: nothing to stop\n", p)
		return 0
	}
	if !st.Alive() {
		fmt.Fprintf(stdout, "PID %d no longer runs llama-server; removed the stale state for port %d\n", st.PID, p)
		return exitOn(llamaserver.RemoveState(p), stderr)
	}
	killed, err := llamaserver.StopPID(st.PID, 10*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server down: %v\n", err)
		return 1
	}
	how := "SIGTERM"
	if killed {
		how = "SIGKILL (it ignored SIGTERM for 10 s)"
	}
	fmt.Fprintf(stdout, "stopped llama-server on port %d (PID %d) with %s; its log stays at %s\n", p, st.PID, how, st.LogPath)
	return exitOn(llamaserver.RemoveState(p), stderr)
}

func exitOn(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab: %v\n", err)
		return 1
	}
	return 0
}

func serverLog(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("server log", "ttftlab server log [--port N] [-n 50] [-f]", stderr)
	port := portFlag(fs)
	n := fs.Int("n", 50, "how many lines to print")
	follow := fs.Bool("f", false, "keep printing new lines until interrupted")
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	p := choosePort(*port)
	path, err := llamaserver.LogPathFor(p)
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server log: %v\n", err)
		return 1
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "ttftlab server log: no log for port %d (%v); start a server with `ttftlab server up`\n", p, err)
		return 1
	}
	tail, size := llamaserver.Tail(path, *n)
	if tail != "" {
		fmt.Fprintln(stdout, tail)
	}
	if !*follow {
		return 0
	}
	ctx, stop := interruptContext(io.Discard, "")
	defer stop()
	if err := llamaserver.Follow(ctx, path, size, stdout); err != nil {
		fmt.Fprintf(stderr, "ttftlab server log: %v\n", err)
		return 1
	}
	return 0
}

func serverInstall(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("server install", "ttftlab server install [--force]", stderr)
	force := fs.Bool("force", false, "reinstall even when llama-server is already found")
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	dir, err := os.MkdirTemp("", "ttftlab-install")
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server install: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "install-llama-server.sh")
	if err := os.WriteFile(script, scripts.InstallScript, 0o755); err != nil {
		fmt.Fprintf(stderr, "ttftlab server install: %v\n", err)
		return 1
	}
	cmdArgs := []string{script}
	if *force {
		cmdArgs = append(cmdArgs, "--force")
	}
	cmd := exec.Command("bash", cmdArgs...)
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab server install: the installation failed: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "llama-server: %s\n", strings.TrimSpace(string(out)))
	return 0
}
