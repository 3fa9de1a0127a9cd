package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/stream/streamtest"
)

// TestLoadSpeechServerDies: `load --tts URL` whose speech server stops
// listening partway through (its listener closed after the speech of
// the third answer: connection refused from then on). Each answer is
// two sentences, one speech request each, and one call runs at a time,
// so turns 1 and 2 of call 1 and turn 1 of call 2 are spoken and every
// later turn fails. Each such row is failed with kind
// tts_connect and the speech server's address in its message, keeps the
// LLM figures it measured (ttft_ms, first_sentence_ms) and has no
// first_audio_ms; a failed turn ends its call (calls 3 to 5 make one
// turn each);
// the level counts the failures by kind, goodput is the spoken share,
// and the level does not meet its SLOs. Without the fix every row read
// ok and goodput was 1.
func TestLoadSpeechServerDies(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	speech := &streamtest.FakeSpeech{CloseAfter: 6}
	ttsURL := speech.Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--tts", ttsURL, "--concurrency", "1", "--requests", "5",
		"--turns", "2", "--think", "10ms", "--docs", "0", "--out", out, "--no-report", "--slo", "ttft_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	spoken, failed := 0, 0
	turns := map[int]int{}
	for _, r := range rows {
		turns[r.Call]++
		if r.ErrorKind == nil {
			spoken++
			if r.FirstAudioMs == nil {
				t.Errorf("ok row without first_audio_ms: %+v", r)
			}
			continue
		}
		failed++
		if *r.ErrorKind != "tts_connect" || !strings.Contains(*r.Error, ttsURL) || r.FirstAudioMs != nil ||
			r.TTFTMs == nil || r.FirstSentenceMs == nil || r.TotalMs == nil {
			t.Errorf("a turn whose speech server was gone: %+v (kind %v, error %v)", r, deref(r.ErrorKind), deref(r.Error))
		}
	}
	if spoken != 3 || failed != 4 || len(rows) != 7 || turns[3]+turns[4]+turns[5] != 3 {
		t.Fatalf("%d rows, %d spoken, %d failed, calls 3 to 5 made %d turns; want 7, 3, 4 and 3 (a failed turn ends its call)",
			len(rows), spoken, failed, turns[3]+turns[4]+turns[5])
	}
	doc := strictLoad(t, out)
	lv := doc.Levels[0]
	s := lv.Summary
	if s.Requests != 7 || s.OK != 3 || s.Failed != 4 || len(s.Failures) != 1 || s.Failures[0].Kind != "tts_connect" || s.Failures[0].N != 4 {
		t.Fatalf("summary: %d requests, %d ok, %d failed, failures %+v", s.Requests, s.OK, s.Failed, s.Failures)
	}
	if s.FirstAudioMs == nil || s.FirstAudioMs.N != 3 || s.TTFTMs.N != 7 {
		t.Errorf("first_audio_ms over %v and ttft_ms over %d, want the 3 spoken and all 7", s.FirstAudioMs, s.TTFTMs.N)
	}
	if lv.Goodput == nil || *lv.Goodput != 3.0/7 || lv.SLOMet {
		t.Errorf("goodput %v, slo_met %v: want 3/7 and not met", lv.Goodput, lv.SLOMet)
	}
	if !strings.Contains(stdout, "failed 4 of 7 requests") || !strings.Contains(stdout, "tts_connect") {
		t.Errorf("the console does not name the speech failures")
	}
}

// TestLoadSpeechServerErrs: a speech server that answers 500 from the
// 7th request on (the fourth answer's first sentence). With an SLO on
// first audio at p20, which the three spoken answers alone would meet,
// the failed rows are counted as failed (not as missing audio) and the
// level fails; each failure is tts_http with its status and the speech
// server's message.
func TestLoadSpeechServerErrs(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	ttsURL := (&streamtest.FakeSpeech{FailFrom: 7}).Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--tts", ttsURL, "--concurrency", "1", "--requests", "6",
		"--docs", "0", "--out", out, "--no-report", "--slo", "first_audio_ms<=60000@p20")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lv := strictLoad(t, out).Levels[0]
	s := lv.Summary
	if s.OK != 3 || s.Failed != 3 || len(s.Failures) != 1 {
		t.Fatalf("summary: %d ok, %d failed, failures %+v", s.OK, s.Failed, s.Failures)
	}
	if f := s.Failures[0]; f.Kind != "tts_http" || f.Status != 500 || !strings.Contains(f.Example, "voice model crashed") {
		t.Errorf("failure %+v", f)
	}
	if v := lv.SLO[0]; v.Failed != 3 || v.Missing != 0 || lv.SLOMet || lv.Goodput == nil || *lv.Goodput != 0.5 {
		t.Errorf("SLO %+v, slo_met %v, goodput %v: want 3 failed, none missing, not met, goodput 0.5", v, lv.SLOMet, lv.Goodput)
	}
	if !strings.Contains(stdout, "tts_http 500") || !strings.Contains(stdout, "voice model crashed") {
		t.Errorf("the console does not name the speech failures")
	}
}
