package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"
)

// callQuestions are the call step's questions (scripts/labconf.lua's
// CALL), in the order the step asks them.
var callQuestions = []string{"When are you open on Saturday?", "Where can I park?", "What should a new patient bring?",
	"How do I get a refill?", "When are lab results ready?"}

// scriptedSTT is an OpenAI transcription server that answers each upload
// with the next of the call's questions, as a perfect recognizer would
// hear them asked in order, and counts the uploads and whether each said
// its length.
type scriptedSTT struct {
	mu               sync.Mutex
	n, withoutLength int
}

func (s *scriptedSTT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/audio/transcriptions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	text := callQuestions[s.n%len(callQuestions)]
	s.n++
	if r.ContentLength <= 0 {
		s.withoutLength++
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"text": text})
}

// needCallerVoice is espeak-ng, which speaks the caller's questions and
// the answers (.ci/run installs it; TTFTLAB_REQUIRE_TTS fails without it).
func needCallerVoice(t *testing.T) {
	t.Helper()
	if _, err := tts.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skipf("no espeak-ng to speak the caller's questions: %v", err)
	}
}

// runCallStep runs `lab -- call` against the real llama-server with the
// given speech-to-text flags and returns the folder, once check passes it.
func runCallStep(t *testing.T, sttFlags ...string) (string, artifact.Call) {
	t.Helper()
	srv := startLlama(t)
	out := t.TempDir()
	args := append([]string{"lab", "--server", srv.URL, "--out", out, "--server-log", srv.LogPath, "--no-report", "--repeat", "6"}, sttFlags...)
	code, stdout, stderr := runCLI(append(args, "--", "call")...)
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "\ncall      passed") {
		t.Fatalf("lab -- call exited %d, or the step did not pass", code)
	}
	requireCheckPasses(t, out, srv.LogPath)
	var c artifact.Call
	data, err := os.ReadFile(filepath.Join(out, artifact.CallFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := artifact.Decode(data, &c); err != nil {
		t.Fatalf("call.json: %v", err)
	}
	// --repeat 6 asks for 6 turns a figure: two calls of five questions.
	if c.Repeat != 2 || len(c.Runs) != 2 {
		t.Fatalf("call.json: repeat %d, %d runs; want 2 of each (the calls that give --repeat 6's turns)", c.Repeat, len(c.Runs))
	}
	for i, r := range c.Runs {
		if len(r.Turns) != len(callQuestions) {
			t.Fatalf("run %d has %d turns, want %d", i+1, len(r.Turns), len(callQuestions))
		}
		for k, turn := range r.Turns {
			if turn.Said != callQuestions[k] {
				t.Errorf("run %d turn %d said %q, want %q", i+1, k+1, turn.Said, callQuestions[k])
			}
		}
	}
	return out, c
}

// TestLabCallStep: the call step against the real llama-server, the
// caller's questions spoken by espeak-ng and uploaded to a transcription
// server (--stt URL) that hears each one right: call.json holds every
// turn with its stamps and parts as the host returned them, and passes
// check.
func TestLabCallStep(t *testing.T) {
	needCallerVoice(t)
	fake := &scriptedSTT{}
	stt := httptest.NewServer(fake)
	defer stt.Close()
	_, c := runCallStep(t, "--stt", stt.URL)
	fake.mu.Lock()
	n, withoutLength := fake.n, fake.withoutLength
	fake.mu.Unlock()
	// One upload a turn, more where a turn was set aside and asked again.
	if turns := 2 * len(callQuestions); n < turns || withoutLength > 0 {
		t.Errorf("%d uploads (%d without Content-Length), want at least %d, each with its length", n, withoutLength, turns)
	}
	if c.STT.URL != stt.URL || c.STT.API != "openai" || c.STT.Engine != "" {
		t.Errorf("call.json stt %+v, want %s, api openai, no engine", c.STT, stt.URL)
	}
	if len(c.Discarded) == 0 {
		// The fake heard every question right, in order.
		for i, r := range c.Runs {
			for k, turn := range r.Turns {
				if turn.Transcript != turn.Said || turn.WER != 0 {
					t.Errorf("run %d turn %d: transcript %q, wer %v; want %q, 0", i+1, k+1, turn.Transcript, turn.WER, turn.Said)
				}
			}
		}
	}
}

// TestLabCallStepDefaultEngine: the call step through the default
// speech-to-text engine, pocketsphinx (.ci/run installs it;
// TTFTLAB_REQUIRE_STT fails without it): call.json passes check,
// whatever the recognizer made of the synthesized voice (a garbled
// transcript is check's warning, no failure).
func TestLabCallStepDefaultEngine(t *testing.T) {
	needCallerVoice(t)
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skipf("no pocketsphinx: %v", err)
	}
	_, c := runCallStep(t, "--stt", "default")
	if c.STT.Engine == "" || c.STT.API == "" {
		t.Errorf("call.json stt %+v: want the default engine named with its protocol", c.STT)
	}
	t.Logf("word error rate at most %v", c.WERMax)
}
