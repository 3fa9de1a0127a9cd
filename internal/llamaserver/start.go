package llamaserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ttftlab/internal/atomicfile"
	"ttftlab/internal/endpoint"
)

// Options configure one llama-server process. The zero values of Host, Ctx,
// Slots and Timeout are replaced by the lab's reference setup.
type Options struct {
	Binary   string // path to llama-server; "" finds it (see Find)
	Model    string // GGUF file
	Host     string // default 127.0.0.1
	Port     int    // required
	Ctx      int    // -c, default 4096
	Slots    int    // -np, default 1
	CacheRAM int    // --cache-ram, default 0 (no host-memory prompt cache)
	// Threads is llama-server's -t. 0 means every core but one: llama.cpp's
	// threads spin while they wait for each other, so a server that takes
	// all cores delays the client's reads (its stamps) and, with any other
	// load on the machine, slows down many times over.
	Threads int
	Extra   []string
	LogPath string // required: server output goes there
	// RotateLog keeps the previous log as LogPath.1 and gives the server a
	// new one, but only once the process has been launched: a start that
	// fails its checks (no model, a taken port, no binary) or cannot exec
	// leaves the previous log, the last run's evidence, where it was.
	RotateLog bool
	Timeout   time.Duration // start-up limit, default 120 s
	// Detach starts the server in its own session so it outlives the caller
	// and a terminal's Ctrl-C does not reach it.
	Detach bool
	// Progress, when set, is called about once a second while the model
	// loads.
	Progress func(elapsed time.Duration, status string)
}

func (o *Options) defaults() {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Ctx == 0 {
		o.Ctx = 4096
	}
	if o.Slots == 0 {
		o.Slots = 1
	}
	if o.Timeout == 0 {
		o.Timeout = 120 * time.Second
	}
	if o.Threads == 0 {
		o.Threads = DefaultThreads()
	}
}

// DefaultThreads is every core but one (at least one).
func DefaultThreads() int {
	return max(1, goruntime.NumCPU()-1)
}

// Args is the llama-server command line (without the binary).
func (o Options) Args() []string {
	o.defaults()
	args := []string{"-m", o.Model, "--host", o.Host, "--port", strconv.Itoa(o.Port),
		"-c", strconv.Itoa(o.Ctx), "-np", strconv.Itoa(o.Slots), "--cache-ram", strconv.Itoa(o.CacheRAM),
		"-t", strconv.Itoa(o.Threads)}
	return append(args, o.Extra...)
}

// secretOptions are llama-server's options whose value is a secret: the
// API keys it takes and the Hugging Face token. (--api-key-file names a
// file, not a key: it is shown.)
var secretOptions = map[string]bool{"--api-key": true, "--hf-token": true, "-hft": true}

// ShownArgs is a llama-server command line as it may be shown or
// recorded: the value of every secret option (--api-key KEY,
// --api-key=KEY, --hf-token TOKEN) is endpoint.Redacted.
func ShownArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if name, _, ok := strings.Cut(a, "="); ok && secretOptions[name] {
			out[i] = name + "=" + endpoint.Redacted
		} else if secretOptions[a] && i+1 < len(out) {
			out[i+1] = endpoint.Redacted
		}
	}
	return out
}

// Server is a running llama-server that this process started.
type Server struct {
	PID     int
	URL     string
	LogPath string
	// Args is the command line as it may be shown and recorded: the
	// values of secret options redacted (ShownArgs). The process got the
	// real ones.
	Args []string
	// scrub takes the secret values of the real command line out of
	// what the server writes of them (its log's lines, shown on failure).
	scrub   *endpoint.Scrubber
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// Start launches llama-server and waits until /health answers ok. On any
// failure nothing is left running.
func Start(ctx context.Context, o Options) (*Server, error) {
	o.defaults()
	bin, err := Find(o.Binary)
	if err != nil {
		return nil, err
	}
	o.Binary = bin
	if err := CheckModel(o.Model); err != nil {
		return nil, err
	}
	if o.Port <= 0 {
		return nil, fmt.Errorf("llama-server needs a port")
	}
	if err := PortFree(o.Host, o.Port); err != nil {
		return nil, err
	}
	log, err := openLog(o.LogPath, o.RotateLog)
	if err != nil {
		return nil, err
	}
	defer log.f.Close() // the child keeps its own descriptor
	cmd := exec.Command(o.Binary, o.Args()...)
	cmd.Stdout, cmd.Stderr = log.f, log.f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !o.Detach, Setsid: o.Detach}
	if err := cmd.Start(); err != nil {
		log.discard()
		return nil, fmt.Errorf("starting %s: %w", o.Binary, err)
	}
	s := &Server{PID: cmd.Process.Pid, URL: "http://" + net.JoinHostPort(o.Host, strconv.Itoa(o.Port)),
		LogPath: o.LogPath, Args: ShownArgs(append([]string{o.Binary}, o.Args()...)), scrub: argScrubber(o.Args()),
		cmd: cmd, exited: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	if err := log.place(); err != nil {
		s.Stop(5 * time.Second)
		return nil, err
	}
	if err := s.waitHealthy(ctx, o); err != nil {
		s.Stop(5 * time.Second)
		s.scrubLog()
		return nil, err
	}
	return s, nil
}

// argScrubber is the scrubber of the values ShownArgs redacts in args:
// llama-server quotes an argument it refuses (--api-key=KEY among them)
// in its log.
func argScrubber(args []string) *endpoint.Scrubber {
	shown := ShownArgs(args)
	secrets := map[string]string{}
	for i, a := range args {
		if shown[i] == a {
			continue
		}
		if name, v, ok := strings.Cut(a, "="); ok && secretOptions[name] {
			a = v
		}
		secrets[fmt.Sprintf("secret %d", i)] = a
	}
	return endpoint.ScrubberFor(secrets)
}

// tail is the log's last n lines, the secrets of the command line
// redacted.
func (s *Server) tail(n int) string { return s.scrub.String(TailFile(s.LogPath, n)) }

// scrubLog rewrites the log of a server that has ended without the
// secrets of its command line it quoted.
func (s *Server) scrubLog() {
	data, err := os.ReadFile(s.LogPath)
	if err != nil || s.scrub == nil {
		return
	}
	if clean := s.scrub.Bytes(data); !bytes.Equal(clean, data) {
		_ = atomicfile.Write(s.LogPath, clean, 0o644)
	}
}

func (s *Server) waitHealthy(ctx context.Context, o Options) error {
	start := time.Now()
	deadline := time.NewTimer(o.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastProgress := start
	for {
		// A server ttftlab starts has no key and speaks plain HTTP.
		status, ok := Health(ctx, &endpoint.Endpoint{Base: s.URL})
		if ok {
			return nil
		}
		if o.Progress != nil && time.Since(lastProgress) >= time.Second {
			lastProgress = time.Now()
			o.Progress(time.Since(start), status)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("llama-server exited during start-up (%v); last lines of %s:\n%s",
				s.waitErr, s.LogPath, s.tail(15))
		case <-deadline.C:
			return fmt.Errorf("%w: llama-server did not become healthy at %s within %s (last status: %s); "+
				"last lines of %s:\n%s", ErrStartTimeout, s.URL, o.Timeout, status, s.LogPath, s.tail(15))
		case <-ctx.Done():
			return fmt.Errorf("llama-server start-up interrupted: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILL. It returns once the
// process is gone.
func (s *Server) Stop(grace time.Duration) error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping llama-server (PID %d): %w", s.PID, err)
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(grace):
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	return nil
}

// Exited is closed when the process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// PortFree reports an error naming the port (and its owner when /proc tells)
// if something already listens there.
func PortFree(host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		owner := portOwner(port)
		if owner != "" {
			owner = " by " + owner
		}
		return &PortTakenError{Host: host, Port: port, Owner: owner}
	}
	return l.Close()
}

// PortTakenError says something already listens on a port.
type PortTakenError struct {
	Host  string
	Port  int
	Owner string // " by NAME (PID N)" when /proc tells, else ""
}

func (e *PortTakenError) Error() string {
	return fmt.Sprintf("port %d on %s is already taken%s", e.Port, e.Host, e.Owner)
}

// ErrStartTimeout is wrapped by the error of a server that did not become
// healthy within Options.Timeout.
var ErrStartTimeout = errors.New("start-up timed out")

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
