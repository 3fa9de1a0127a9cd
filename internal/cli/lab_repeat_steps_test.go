package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/tts"
)

// TestLabRepeatsSentencePrefillAndAudio: with --repeat 3 the sentence,
// prefill and audio steps write 3 valid runs each, and set aside what the
// real server cannot be made to produce, with why: in front of it, the
// sentence step's first answer comes in one write (read whole at once),
// and the 12-docs prompt of the prefill
// step's second repetition says it found 1000 tokens in the cache. Each
// is measured again, and check passes the folder.
var maxTokens = regexp.MustCompile(`"max_tokens":\s*[0-9]+`)

func TestLabRepeatsSentencePrefillAndAudio(t *testing.T) {
	srv := startLlama(t)
	var mu sync.Mutex
	sentences, saturdays := 0, 0
	front := frontOfLlama(t, srv, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		mu.Lock()
		var whole, cached bool
		switch {
		case bytes.Contains(body, []byte("fasting blood test")):
			sentences++
			whole = sentences == 1
		case bytes.Contains(body, []byte("open on Saturday")):
			// 1 is the step's warm-up, 2-4 repetition 1, 5-7 repetition 2.
			saturdays++
			cached = saturdays == 7
		}
		mu.Unlock()
		if !whole && !cached {
			return false
		}
		if whole {
			// A short answer: a few kB leave in one segment, where the
			// whole 120 tokens (tens of kB) may leave in two, and
			// arrive in two reads some µs apart on a busy machine.
			if !maxTokens.Match(body) {
				t.Errorf("the sentence step's request has no max_tokens to shorten: %s", body)
			}
			body = maxTokens.ReplaceAll(body, []byte(`"max_tokens":4`))
		}
		resp, all := askLlama(t, srv, r, body)
		if resp == nil {
			return false
		}
		if cached {
			all = bytes.Replace(all, []byte(`"cache_n":0,`), []byte(`"cache_n":1000,`), 1)
		}
		// The whole answer in one write of the body, which a length
		// (no chunked encoding) leaves in one piece.
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.Header().Set("Content-Length", strconv.Itoa(len(all)))
		w.WriteHeader(resp.StatusCode)
		w.(http.Flusher).Flush()
		w.Write(all)
		return true
	})
	steps := []string{"prefill", "sentence"}
	audio := true
	if _, err := tts.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Logf("the audio step is not run: %v", err)
		audio = false
	} else {
		steps = append(steps, "audio")
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(append([]string{"lab", "--server", front.URL, "--out", out, "--server-log", srv.LogPath,
		"--no-report", "--repeat", "3", "--"}, steps...)...)
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("lab exited %d", code)
	}
	requireCheckPasses(t, out, srv.LogPath)

	var sentence artifact.Sentence
	readJSON(t, filepath.Join(out, "sentence.json"), &sentence)
	if sentence.Repeat != 3 || len(sentence.Runs) != 3 || sentence.Runs[0].FirstSentenceMs != sentence.FirstSentenceMs {
		t.Errorf("sentence.json: repeat %d, %d runs, top level first_sentence_ms %v, runs[0]'s %v; want 3 runs, the first at the top",
			sentence.Repeat, len(sentence.Runs), sentence.FirstSentenceMs, sentence.Runs)
	}
	wantDiscarded(t, "sentence.json", sentence.Discarded, 1, "whole answer arrived in one read")
	if !strings.Contains(stdout, fmt.Sprintf("(3 runs, %d set aside)", len(sentence.Discarded))) {
		t.Errorf("the sentence step's line does not say its runs and the one set aside")
	}

	var prefill []artifact.PrefillRow
	readJSON(t, filepath.Join(out, "prefill.json"), &prefill)
	if len(prefill) != 3 {
		t.Fatalf("prefill.json has %d rows, want 3", len(prefill))
	}
	for _, row := range prefill {
		if row.Repeat != 3 || len(row.Runs) != 3 || row.Runs[0].TTFTMs != row.TTFTMs {
			t.Errorf("prefill.json docs %v: repeat %d, runs %+v; want 3 runs, the first in the row", row.Docs, row.Repeat, row.Runs)
		}
		wantDiscarded(t, "prefill.json", row.Discarded, 2, "12 docs: the cold prompt found 1000 of its")
	}

	if audio {
		var a artifact.Audio
		readJSON(t, filepath.Join(out, "audio.json"), &a)
		if a.Repeat != 3 || len(a.Runs) != 3 {
			t.Errorf("audio.json: repeat %d, %d runs; want 3", a.Repeat, len(a.Runs))
		}
	}
}
