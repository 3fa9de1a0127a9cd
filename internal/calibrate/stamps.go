package calibrate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// Stamp files are plain text, one stamp per line, fields separated by
// tabs or spaces; lines starting with # are comments.
//
// Send stamps (the server's --stamps FILE), appended per request:
//
//	# request 3: steady 1000/s, 3000 chunks
//	3	0	1234567890123
//	3	1	1234568890456
//
// are request number, chunk index and CLOCK_MONOTONIC nanoseconds. Chunk
// 0 is the write of the response headers and role chunk, from which the
// schedule counts; chunk i is the i-th content chunk, stamped right
// before the write that carried it (chunks of one burst share a stamp).
//
// Arrival stamps (what a client writes) are chunk index and
// CLOCK_MONOTONIC nanoseconds when the client had the chunk:
//
//	1	1234568912345

// appendStamps adds one request's send stamps to path.
func appendStamps(path string, request int, s Schedule, stamps []int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open the send stamps file: %w", err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	fmt.Fprintf(w, "# request %d: %s, %d chunks, %d per write\n", request, s.Name(), s.Chunks, s.burstSize())
	var line []byte
	for i, at := range stamps {
		line = strconv.AppendInt(line[:0], int64(request), 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, at, 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing the send stamps to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the send stamps to %s: %w", path, err)
	}
	return nil
}

// errNoRecord says a request left no record: it never reached the server.
var errNoRecord = errors.New("the request never reached the calibration server")

// ReadSendStamps returns request's send stamps from a send stamps file,
// indexed by chunk (0: the headers); a chunk never sent is 0.
func ReadSendStamps(path string, request int) ([]int64, error) {
	var stamps []int64
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist yet: %w", path, errNoRecord)
	}
	err := scanStamps(path, 3, func(f []int64) error {
		if f[0] != int64(request) {
			return nil
		}
		if f[1] < 0 || f[1] > 1<<30 {
			return fmt.Errorf("chunk index %d out of range", f[1])
		}
		for int64(len(stamps)) <= f[1] {
			stamps = append(stamps, 0)
		}
		stamps[f[1]] = f[2]
		return nil
	})
	if err == nil && stamps == nil {
		err = fmt.Errorf("%s has no stamps of request %d: %w", path, request, errNoRecord)
	}
	return stamps, err
}

// ReadArrivals returns a client's arrival stamps by chunk index (index 0
// unused; a chunk the client never stamped is 0).
func ReadArrivals(path string) ([]int64, error) {
	stamps := []int64{0}
	err := scanStamps(path, 2, func(f []int64) error {
		if f[0] < 1 || f[0] > 1<<30 {
			return fmt.Errorf("chunk index %d out of range (chunks count from 1)", f[0])
		}
		for int64(len(stamps)) <= f[0] {
			stamps = append(stamps, 0)
		}
		stamps[f[0]] = f[1]
		return nil
	})
	return stamps, err
}

// scanStamps calls fn with the n integer fields of every line of path
// that is not blank or a comment.
func scanStamps(path string, n int, fn func([]int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot read stamps: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fields := make([]int64, n)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if err := parseFields(text, fields); err != nil {
			return fmt.Errorf("%s:%d: %v (want %d integers per line)", path, line, err, n)
		}
		if err := fn(fields); err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

// parseFields fills out with the whitespace-separated integers of text.
func parseFields(text []byte, out []int64) error {
	parts := bytes.Fields(text)
	if len(parts) != len(out) {
		return fmt.Errorf("%d fields", len(parts))
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(string(p), 10, 64)
		if err != nil {
			return fmt.Errorf("field %d: %q is not an integer", i+1, p)
		}
		out[i] = v
	}
	return nil
}
