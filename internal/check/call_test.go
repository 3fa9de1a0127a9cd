package check

import (
	"strings"
	"testing"
)

// callJSON is a call step's file of two repetitions of two questions,
// with known arithmetic. Turn 1 went through a streaming recognizer that
// says when the caller stopped (speech_stopped_ms) and sends partials;
// turn 2 through an upload, which says neither. Mouth to ear of turn 1 is
// 2100 - 1500 = 600 = 300 + 99 + 50 + 149 + 2; of turn 2, 1801 - 1000 =
// 801 = 400 + 100 + 100 + 200 + 1 (811 in the second repetition, whose
// speech engine took 10 ms longer).
const callJSON = `{"stt":{"url":"http://127.0.0.1:1","api":"realtime","engine":"pocketsphinx 5.0.3"},
 "tts":{"url":"http://127.0.0.1:2","source":"--tts default","model":"espeak-ng","format":"pcm","engine":"espeak-ng 1.51"},
 "questions":["When is the clinic open on Saturday?","Do I need an appointment?"],
 "repeat":2,
 "runs":[{"turns":[
  {"said":"When is the clinic open on Saturday?","transcript":"when is the clinic open on saturday","wer":0,
   "stamps":{"speech_end_ms":1500,"speech_stopped_ms":1700,"first_partial_ms":1200,"final_ms":1800,"request_ms":1801,"ttft_ms":1900,"first_sentence_ms":1950,"tts_sent_ms":1951,"first_audio_ms":2100},
   "parts":{"mouth_to_ear_ms":600,"endpointing_ms":200,"stt_final_ms":300,"stt_first_partial_ms":-300,"transcription_ms":100,"handoff_ms":1,"llm_ttft_ms":99,"first_sentence_ms":50,"tts_handoff_ms":1,"tts_first_audio_ms":149,"client_overhead_ms":2},
   "stt":{"api":"realtime","dialect":"beta","rate":24000,"audio_ms":1800}},
  {"said":"Do I need an appointment?","transcript":"do i need an appointment","wer":0,
   "stamps":{"speech_end_ms":1000,"final_ms":1400,"request_ms":1400.5,"ttft_ms":1500.5,"first_sentence_ms":1600.5,"tts_sent_ms":1601,"first_audio_ms":1801},
   "parts":{"mouth_to_ear_ms":801,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100,"first_sentence_ms":100,"tts_handoff_ms":0.5,"tts_first_audio_ms":200,"client_overhead_ms":1},
   "stt":{"api":"realtime","rate":24000,"audio_ms":1300}}]},
  {"turns":[
  {"said":"When is the clinic open on Saturday?","transcript":"when is the clinic open on saturday","wer":0,
   "stamps":{"speech_end_ms":1500,"speech_stopped_ms":1700,"first_partial_ms":1200,"final_ms":1800,"request_ms":1801,"ttft_ms":1900,"first_sentence_ms":1950,"tts_sent_ms":1951,"first_audio_ms":2100},
   "parts":{"mouth_to_ear_ms":600,"endpointing_ms":200,"stt_final_ms":300,"stt_first_partial_ms":-300,"transcription_ms":100,"handoff_ms":1,"llm_ttft_ms":99,"first_sentence_ms":50,"tts_handoff_ms":1,"tts_first_audio_ms":149,"client_overhead_ms":2},
   "stt":{"api":"realtime","dialect":"beta","rate":24000,"audio_ms":1800}},
  {"said":"Do I need an appointment?","transcript":"do i need an appointment","wer":0,
   "stamps":{"speech_end_ms":1000,"final_ms":1400,"request_ms":1400.5,"ttft_ms":1500.5,"first_sentence_ms":1600.5,"tts_sent_ms":1601,"first_audio_ms":1811},
   "parts":{"mouth_to_ear_ms":811,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100,"first_sentence_ms":100,"tts_handoff_ms":0.5,"tts_first_audio_ms":210,"client_overhead_ms":1},
   "stt":{"api":"realtime","rate":24000,"audio_ms":1300}}]}],
 "mouth_to_ear_p50":700.5,"stt_final_p50":350,"wer_max":0}`

var callChecks = []string{"file call.json", "call runs", "call timing order", "call parts add up", "call transcripts", "call medians"}

// The call step's rules pass a consistent file, and each fails a file
// broken its way, naming the turn and the repetition.
func TestCallChecks(t *testing.T) {
	got, _, _, out := runFolder(t, validFiles(), true)
	for _, name := range callChecks {
		if got[name].status != "PASS" {
			t.Fatalf("%s: %+v\n%s", name, got[name], out)
		}
	}
	// The second repetition's second turn, as written above.
	rep2turn2 := `"tts_sent_ms":1601,"first_audio_ms":1811},
   "parts":{"mouth_to_ear_ms":811,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100`
	for _, c := range []struct {
		name, old, new, fail, msg string
	}{
		{"first audio before the first sentence", rep2turn2,
			`"tts_sent_ms":1601,"first_audio_ms":1590},
   "parts":{"mouth_to_ear_ms":811,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100`,
			"call timing order", "repetition 2 of 2: turn 2: want speech_end_ms < final_ms"},
		{"the final transcript before the speech end", `"speech_end_ms":1000,"final_ms":1400`, `"speech_end_ms":1000,"final_ms":1000`,
			"call timing order", "repetition 1 of 2: turn 2: want speech_end_ms < final_ms"},
		{"a part too short, so the parts leave some of mouth to ear", rep2turn2,
			`"tts_sent_ms":1601,"first_audio_ms":1811},
   "parts":{"mouth_to_ear_ms":811,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":90`,
			"call parts add up", "repetition 2 of 2: turn 2: stt_final_ms 400 + llm_ttft_ms 90 + first_sentence_ms 100 + tts_first_audio_ms 210 + client_overhead_ms 1 leave 10 ms of mouth_to_ear_ms 811 unaccounted"},
		{"parts that add up, but not to what the stamps say", `"mouth_to_ear_ms":811,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100,"first_sentence_ms":100,"tts_handoff_ms":0.5,"tts_first_audio_ms":210`,
			`"mouth_to_ear_ms":801,"stt_final_ms":400,"handoff_ms":0.5,"llm_ttft_ms":100,"first_sentence_ms":100,"tts_handoff_ms":0.5,"tts_first_audio_ms":200`,
			"call parts add up", "repetition 2 of 2: turn 2: the parts add up, but are not their stamps' differences: mouth_to_ear_ms 801, its stamps give 811; tts_first_audio_ms 200, its stamps give 210"},
		{"a part the server gave no stamp for", `"stt_final_ms":400,"handoff_ms":0.5`, `"stt_final_ms":400,"endpointing_ms":5,"handoff_ms":0.5`,
			"call parts add up", "repetition 1 of 2: turn 2: the parts add up, but are not their stamps' differences: endpointing_ms 5, its stamps give none"},
		{"fewer runs than its repeat", `"repeat":2`, `"repeat":3`, "call runs", "call.json has 2 runs, want 3 (its repeat)"},
		{"a turn missing", `"questions":["When is the clinic open on Saturday?","Do I need an appointment?"]`,
			`"questions":["When is the clinic open on Saturday?","Do I need an appointment?","Where do I park?"]`, "call runs", "repetition 1 of 2 has 2 turns, want one a question (3)"},
		{"a word error rate that is not the transcript's", `"transcript":"do i need an appointment","wer":0`,
			`"transcript":"do i need an appointment","wer":0.2`, "call transcripts", "repetition 1 of 2, turn 2: wer 0.2"},
		{"a negative word error rate", `"transcript":"do i need an appointment","wer":0`,
			`"transcript":"do i need an appointment","wer":-1`, "call transcripts", "want a number not below 0"},
		{"a median that is not", `"mouth_to_ear_p50":700.5`, `"mouth_to_ear_p50":705`, "call medians", "mouth_to_ear_p50 is 705, the turns give 700.5"},
	} {
		f := validFiles()
		f["call.json"] = strings.Replace(callJSON, c.old, c.new, 1)
		if f["call.json"] == callJSON {
			t.Fatalf("%s: %q not in call.json", c.name, c.old)
		}
		got, _, failed, out := runFolder(t, f, true)
		if o := got[c.fail]; o.status != "FAIL" || !strings.Contains(o.msg, c.msg) || failed == 0 {
			t.Errorf("%s: %s is %+v, want FAIL naming %q\n%s", c.name, c.fail, o, c.msg, out)
		}
	}
}

// A garbled transcript is a warning that says the LLM's timings are of a
// garbled question; the folder still passes.
func TestCallGarbledTranscriptWarns(t *testing.T) {
	f := validFiles()
	f["call.json"] = strings.Replace(strings.Replace(callJSON, `"transcript":"do i need an appointment","wer":0`,
		`"transcript":"the bee need a point","wer":0.8`, 1), `"wer_max":0`, `"wer_max":0.8`, 1)
	got, _, failed, out := runFolder(t, f, true)
	o := got["call transcripts"]
	if o.status != "WARN" || !strings.Contains(o.msg, "1 of 4 transcripts are garbled") ||
		!strings.Contains(o.msg, "the LLM's timings of those turns are of a garbled question") || !strings.Contains(o.msg, `repetition 1 of 2, turn 2 (wer 0.8: "Do I need an appointment?" heard as "the bee need a point")`) {
		t.Errorf("call transcripts: %+v, want a warning naming the turn\n%s", o, out)
	}
	if failed != 0 || !strings.Contains(out, "1 with a warning\n") {
		t.Errorf("a warning fails nothing and is counted: %d failed\n%s", failed, out)
	}
}

// A folder without steps.json was written before the lab had a call
// step: no call.json is no failure.
func TestCallFileOptionalInOldFolders(t *testing.T) {
	f := validFiles()
	delete(f, "call.json")
	got, _, _, out := runFolder(t, f, true)
	if o := got["file call.json"]; o.status != "SKIP" || !strings.Contains(o.msg, "before the lab had a call step") {
		t.Errorf("file call.json: %+v\n%s", o, out)
	}
}

// Many garbled transcripts: the warning names the first few and counts
// the rest, so the line stays readable. One wer is to every digit, as a
// folder written before the word error rate was rounded holds it.
func TestCallGarbledTranscriptsCounted(t *testing.T) {
	f := validFiles()
	call := strings.ReplaceAll(callJSON, `"transcript":"do i need an appointment","wer":0`, `"transcript":"the bee need a point","wer":0.8`)
	call = strings.ReplaceAll(call, `"transcript":"when is the clinic open on saturday","wer":0`, `"transcript":"win is the click","wer":0.7142857142857143`)
	f["call.json"] = strings.Replace(call, `"wer_max":0`, `"wer_max":0.8`, 1)
	got, _, _, out := runFolder(t, f, true)
	if o := got["call transcripts"]; o.status != "WARN" || !strings.Contains(o.msg, "4 of 4 transcripts are garbled") ||
		!strings.HasSuffix(o.msg, "; and 1 more") || strings.Count(o.msg, "heard as") != 3 {
		t.Errorf("call transcripts: %+v, want 3 turns named and 1 more counted\n%s", o, out)
	}
}

// The host computes a turn's parts from its stamps before they are
// written to the microsecond: a recorded part may differ from the one
// the written stamps give by a few microseconds (client_overhead_ms 10.9
// where they give 10.898, as a real run wrote), and still agree.
func TestCallPartsWithinTheStampsRounding(t *testing.T) {
	f := validFiles()
	f["call.json"] = strings.Replace(callJSON, `"tts_handoff_ms":0.5,"tts_first_audio_ms":210,"client_overhead_ms":1}`,
		`"tts_handoff_ms":0.5,"tts_first_audio_ms":209.997,"client_overhead_ms":1.003}`, 1)
	if f["call.json"] == callJSON {
		t.Fatal("the second run's second turn is not in call.json")
	}
	got, _, _, out := runFolder(t, f, true)
	if o := got["call parts add up"]; o.status != "PASS" {
		t.Errorf("call parts add up: %+v, want PASS within the stamps' rounding\n%s", o, out)
	}
}
