package pocketsphinx

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	"ttftlab/internal/engineserve"
)

// Rate is the sample rate the en-us model decodes; audio of any other
// rate is resampled to it.
const Rate = 16000

// warmup is written to a decoder as soon as it starts. `pocketsphinx live
// -` reads 4 bytes to tell a WAV header from raw samples before it loads
// the model (0.6 s of a core here); these 4 zero bytes (2 samples of
// silence) make it load the model while it waits for the audio, so a
// request does not pay the load.
var warmup = []byte{0, 0, 0, 0}

// utterance is a line `pocketsphinx live` prints when its voice activity
// detection ends an utterance: the text, its begin and duration in
// seconds since the start of the audio the process was given.
type utterance struct {
	Text  string  `json:"t"`
	Begin float64 `json:"b"`
	Dur   float64 `json:"d"`
}

// decoder is one `pocketsphinx live -` process: raw 16 kHz 16-bit mono on
// its stdin, an utterance a line on its stdout.
type decoder struct {
	s      *Server
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *tail

	// died is set by a session's reader when the process's output ended
	// in an error.
	died atomic.Bool

	inOnce   sync.Once
	waitOnce sync.Once
	waitErr  error
}

// spawn starts a decoder and gives it the warm-up bytes.
func (s *Server) spawn() (*decoder, error) {
	args := append(modelArgs(s.Bin), "live", "-")
	cmd := exec.Command(s.Bin, args...)
	d := &decoder{s: s, cmd: cmd, stderr: &tail{}}
	cmd.Stderr = d.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start pocketsphinx (%s): %w", s.Bin, err)
	}
	d.in = in
	d.out = bufio.NewScanner(out)
	// A long utterance's line lists every word with its times.
	d.out.Buffer(make([]byte, 64<<10), 4<<20)
	s.track(d, true)
	if _, err := in.Write(warmup); err != nil {
		d.stop()
		return nil, d.failure(err)
	}
	return d, nil
}

// write gives the decoder samples (16 kHz little-endian PCM16).
func (d *decoder) write(pcm []byte) error {
	if _, err := d.in.Write(pcm); err != nil {
		return d.failure(err)
	}
	return nil
}

// closeInput ends the audio: the decoder ends the utterance it is in,
// prints it, and exits.
func (d *decoder) closeInput() {
	d.inOnce.Do(func() { d.in.Close() })
}

// next is the next utterance the decoder printed; io.EOF once it has
// printed all and exited cleanly.
func (d *decoder) next() (utterance, error) {
	for d.out.Scan() {
		line := strings.TrimSpace(d.out.Text())
		if line == "" {
			continue
		}
		var u utterance
		if err := json.Unmarshal([]byte(line), &u); err != nil {
			return u, fmt.Errorf("pocketsphinx printed a line that is not an utterance: %.200q", line)
		}
		return u, nil
	}
	if err := d.out.Err(); err != nil {
		d.kill()
		d.wait()
		return utterance{}, fmt.Errorf("reading pocketsphinx's output: %w", err)
	}
	if err := d.wait(); err != nil {
		return utterance{}, err
	}
	return utterance{}, io.EOF
}

// kill ends the process by its PID.
func (d *decoder) kill() {
	if d.cmd.Process != nil {
		d.cmd.Process.Kill()
	}
}

// wait waits for the process to exit and counts its CPU time: once, after
// its output was read to the end (or it was killed). The error says why it
// failed, with its last lines of stderr.
func (d *decoder) wait() error {
	d.waitOnce.Do(func() {
		d.closeInput()
		err := d.cmd.Wait()
		d.s.CPU.Add(int64(engineserve.CPU(d.cmd.ProcessState)))
		d.s.track(d, false)
		if err != nil {
			d.waitErr = d.failure(err)
		}
	})
	return d.waitErr
}

// stop kills the process if it still runs and waits for it.
func (d *decoder) stop() {
	d.kill()
	d.wait()
}

// failure says what went wrong with the process, with what it said.
func (d *decoder) failure(err error) error {
	if msg := d.stderr.String(); msg != "" {
		return fmt.Errorf("pocketsphinx (%s): %v: %s", d.s.Bin, err, msg)
	}
	return fmt.Errorf("pocketsphinx (%s): %w", d.s.Bin, err)
}

// tail keeps the last lines a process wrote on stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.buf)), " ")
}

// errClosed is what take answers once the server is closed.
var errClosed = errors.New("the speech-to-text server is closed")
