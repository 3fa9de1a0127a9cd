package check

import (
	"strings"
	"testing"
)

// audioJSON is an audio step's file with known arithmetic: sentence 1's
// audio comes at 90 and plays 90-1090; sentence 2's comes at 1190, 100 ms
// after the speaker fell silent (an underrun), and plays 1190-3190. Its two
// runs differ in overhead_ms alone.
const audioJSON = `{"tts":{"url":"http://127.0.0.1:1","source":"--tts default","model":"espeak-ng","format":"pcm","engine":"espeak-ng 1.51"},
 "repeat":2,
 "runs":[{"ttft_ms":10,"first_sentence_ms":40,"tts_sent_ms":41,"first_audio_ms":90,"first_voiced_ms":95,"tts_first_audio_ms":49,
  "audio_ms":3000,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":1,"sentences":2,"total_ms":120},
  {"ttft_ms":10,"first_sentence_ms":40,"tts_sent_ms":41,"first_audio_ms":90,"first_voiced_ms":95,"tts_first_audio_ms":49,
  "audio_ms":3000,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":2,"sentences":2,"total_ms":120}],
 "ttft_p50":10,"first_sentence_p50":40,"first_audio_p50":90,"tts_first_audio_p50":49,"underrun_p50":100,"tts_share":0.5555555555555556,
 "spoken":[{"text":"We open at 8.","ready_ms":40,"tts_sent_ms":41,"first_audio_ms":90,"audio_done_ms":100,"audio_ms":1000,"start_ms":90,"end_ms":1090},
  {"text":"Bring ID.","ready_ms":120,"tts_sent_ms":121,"first_audio_ms":1190,"audio_done_ms":1200,"audio_ms":2000,"start_ms":1190,"end_ms":3190}],
 "chunks":[{"t_ms":10,"text":"We open at 8."},{"t_ms":40,"text":" Bring ID."}]}`

func TestAudioChecks(t *testing.T) {
	got, _, _, out := runFolder(t, validFiles(), true)
	for _, name := range []string{"file audio.json", "audio runs", "audio timing order", "audio came", "audio playback adds up", "audio medians"} {
		if got[name].status != "PASS" {
			t.Fatalf("%s: %+v\n%s", name, got[name], out)
		}
	}
	for _, c := range []struct {
		name, old, new, fail, msg string
	}{
		{"first audio before the first sentence", `"tts_sent_ms":41,"first_audio_ms":90,"first_voiced_ms"`, `"tts_sent_ms":41,"first_audio_ms":30,"first_voiced_ms"`,
			"audio timing order", "first_audio_ms"},
		{"the second run's first audio before its first sentence", `"first_audio_ms":90,"first_voiced_ms":95,"tts_first_audio_ms":49,
  "audio_ms":3000,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":2`, `"first_audio_ms":30,"first_voiced_ms":95,"tts_first_audio_ms":-11,
  "audio_ms":3000,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":2`, "audio timing order", "repetition 2 of 2: want ttft_ms <= first_sentence_ms"},
		{"fewer runs than its repeat", `"repeat":2`, `"repeat":3`, "audio runs", "audio.json has 2 runs, want 3 (its repeat)"},
		{"no repeat: a file from before it, of 5 runs", `"repeat":2,`, ``, "audio runs", "audio.json has 2 runs, want 5 (no repeat: written before it was recorded)"},
		{"no audio", `"audio_ms":3000`, `"audio_ms":0`, "audio came", "no audio"},
		{"no audio in the second run", `"audio_ms":3000,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":2`,
			`"audio_ms":0,"underrun_ms":100,"underruns":1,"speak_end_ms":3190,"overhead_ms":2`, "audio came", "repetition 2 of 2: audio_ms 0"},
		{"a start before its audio came", `"start_ms":1190,"end_ms":3190`, `"start_ms":1090,"end_ms":3090`, "audio playback adds up", "sentence 2 plays 1090-3090"},
		{"underruns not counted", `"underrun_ms":100,"underruns":1`, `"underrun_ms":0,"underruns":0`, "audio playback adds up", "underrun_ms 0"},
		{"a median that is not", `"first_audio_p50":90`, `"first_audio_p50":95`, "audio medians", "first_audio_p50 is 95"},
	} {
		f := validFiles()
		f["audio.json"] = strings.Replace(audioJSON, c.old, c.new, 1)
		if f["audio.json"] == audioJSON {
			t.Fatalf("%s: %q not in audio.json", c.name, c.old)
		}
		got, _, _, out := runFolder(t, f, true)
		if o := got[c.fail]; o.status != "FAIL" || !strings.Contains(o.msg, c.msg) {
			t.Errorf("%s: %s is %+v, want FAIL naming %q\n%s", c.name, c.fail, o, c.msg, out)
		}
	}
}
