// Command naiveclient is the plain Go streaming client most programs
// contain: net/http's default client, a bufio.Scanner over the body, and
// the JSON of each data line decoded before the chunk is stamped. It is a
// comparison point for ttftlab's timing, not part of ttftlab.
//
//	naiveclient URL ARRIVALS_FILE       calibration mode (ttftlab calibrate --client)
//	naiveclient --ttft URL BODY_JSON    one request; prints ttft_ms, total_ms, timings
//
// Arrival stamps are CLOCK_MONOTONIC nanoseconds, one "index<TAB>ns" line
// per content chunk.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"ttftlab/internal/monoclock"
)

// chunk is the part of a chat.completion.chunk this client reads.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
	Timings map[string]any `json:"timings"`
}

// stamped is one decoded chunk and when the client had it.
type stamped struct {
	at int64
	c  chunk
}

func main() {
	var err error
	switch {
	case len(os.Args) == 4 && os.Args[1] == "--ttft":
		err = ttft(os.Args[2], os.Args[3])
	case len(os.Args) == 3:
		err = stampArrivals(os.Args[1], os.Args[2])
	default:
		err = fmt.Errorf("usage: naiveclient URL ARRIVALS_FILE | naiveclient --ttft URL BODY_JSON")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "naiveclient:", err)
		os.Exit(1)
	}
}

// stream posts body and calls fn for every data chunk, decoded first and
// stamped after, as the typical client does.
func stream(url, body string, fn func(stamped)) (t0 int64, err error) {
	t0 = monoclock.Now()
	resp, err := http.Post(strings.TrimRight(url, "/")+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return t0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return t0, fmt.Errorf("%s: HTTP %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		payload, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		if string(bytes.TrimSpace(payload)) == "[DONE]" {
			return t0, nil
		}
		var c chunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return t0, fmt.Errorf("bad chunk %q: %w", payload, err)
		}
		fn(stamped{at: monoclock.Now(), c: c})
	}
	if err := sc.Err(); err != nil {
		return t0, err
	}
	return t0, fmt.Errorf("%s: the stream ended without data: [DONE]", url)
}

func content(c chunk) string {
	if len(c.Choices) == 0 {
		return ""
	}
	return c.Choices[0].Delta.Content
}

func stampArrivals(url, out string) error {
	var b strings.Builder
	b.WriteString("# naiveclient arrivals: chunk index, CLOCK_MONOTONIC ns after decoding\n")
	n := 0
	_, err := stream(url, `{"messages":[{"role":"user","content":"Tell me a story."}],"stream":true}`, func(s stamped) {
		if content(s.c) != "" {
			n++
			fmt.Fprintf(&b, "%d\t%d\n", n, s.at)
		}
	})
	if err != nil {
		return err
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

func ttft(url, body string) error {
	var first, last int64
	var timings map[string]any
	t0, err := stream(url, body, func(s stamped) {
		last = s.at
		if first == 0 && content(s.c) != "" {
			first = s.at
		}
		if s.c.Timings != nil {
			timings = s.c.Timings
		}
	})
	if err != nil {
		return err
	}
	ms := func(t int64) any {
		if t == 0 {
			return nil
		}
		return float64(t-t0) / 1e6
	}
	out, err := json.Marshal(map[string]any{"ttft_ms": ms(first), "total_ms": ms(last), "timings": timings})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}
