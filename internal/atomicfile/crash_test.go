package atomicfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// childEnv tells a re-executed test binary to act as the writer process.
const childEnv = "ATOMICFILE_TEST_WRITER_TARGET"

// TestWriterProcess is not a test on its own: when childEnv is set it writes
// versions of the target in a loop until it is killed.
func TestWriterProcess(t *testing.T) {
	target := os.Getenv(childEnv)
	if target == "" {
		t.Skip("helper process for TestKilledWriterNeverLeavesPartialFile")
	}
	v := 0
	if data, err := os.ReadFile(target); err == nil {
		if got, err := verifyVersion(data); err == nil {
			v = got
		}
	}
	for {
		v++
		if err := Write(target, makeVersion(v), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
}

// A version is a header naming its number, payload size and checksum, then
// a payload of 256 KiB to 2 MiB: any truncation or mix-up is detectable.
func makeVersion(v int) []byte {
	r := rand.New(rand.NewPCG(uint64(v), 7))
	payload := make([]byte, 256<<10+r.IntN(7*256<<10))
	for i := range payload {
		payload[i] = byte(r.Uint32())
	}
	sum := sha256.Sum256(payload)
	head := fmt.Sprintf("version=%d size=%d sha256=%x\n", v, len(payload), sum)
	return append([]byte(head), payload...)
}

func verifyVersion(data []byte) (int, error) {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return 0, fmt.Errorf("no header line in %d bytes", len(data))
	}
	var v, size int
	var sum []byte
	if _, err := fmt.Sscanf(string(data[:nl]), "version=%d size=%d sha256=%x", &v, &size, &sum); err != nil {
		return 0, fmt.Errorf("bad header %q: %v", data[:nl], err)
	}
	payload := data[nl+1:]
	if len(payload) != size {
		return v, fmt.Errorf("version %d: payload %d bytes, header says %d", v, len(payload), size)
	}
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return v, fmt.Errorf("version %d: checksum mismatch", v)
	}
	return v, nil
}

// TestKilledWriterNeverLeavesPartialFile runs a writer in a child process,
// reads the target concurrently while it writes, and SIGKILLs the child at
// random moments. Every read must show no file or one complete version, and
// versions must never go backwards.
func TestKilledWriterNeverLeavesPartialFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	target := filepath.Join(t.TempDir(), "result.bin")
	last := 0
	rounds := 12
	for i := 0; i < rounds; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$")
		cmd.Env = append(os.Environ(), childEnv+"="+target)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		var readErr error
		go func() {
			defer wg.Done()
			readErr = readUntil(target, stop, &last)
		}()
		time.Sleep(time.Duration(30+rand.IntN(150)) * time.Millisecond)
		cmd.Process.Kill()
		err := cmd.Wait()
		close(stop)
		wg.Wait()
		if readErr != nil {
			t.Fatalf("round %d: a reader saw a broken file: %v", i, readErr)
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != -1 {
			t.Fatalf("round %d: writer ended by itself (%v): %s", i, err, stderr.Bytes())
		}
		if err := checkOnce(target, &last); err != nil {
			t.Fatalf("round %d: after the kill: %v", i, err)
		}
	}
	if last == 0 {
		t.Fatal("the writer never completed a single version; the test proved nothing")
	}
}

func readUntil(target string, stop <-chan struct{}, last *int) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := checkOnce(target, last); err != nil {
			return err
		}
	}
}

// checkOnce reads the target: absent or a complete version not older than
// the last one seen.
func checkOnce(target string, last *int) error {
	data, err := os.ReadFile(target)
	if errors.Is(err, fs.ErrNotExist) {
		if *last != 0 {
			return fmt.Errorf("file vanished after version %d", *last)
		}
		return nil
	}
	if err != nil {
		return err
	}
	v, err := verifyVersion(data)
	if err != nil {
		return err
	}
	if v < *last {
		return fmt.Errorf("version went back from %d to %d", *last, v)
	}
	*last = v
	return nil
}
