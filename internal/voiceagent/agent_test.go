package voiceagent

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/stream/streamtest"
)

// speakTurn sends a caller's turn: 300 ms of speech, then silence frames
// until typ comes; it returns the events read.
func speakTurn(cl *client, typ string) []event {
	cl.t.Helper()
	return turn(cl, typ, false)
}

// turn is speakTurn; errorsOK lets error events come.
func turn(cl *client, typ string, errorsOK bool) []event {
	cl.t.Helper()
	cl.appendPCM(tone(300))
	var got []event
	for i := 0; i < 500; i++ {
		cl.appendPCM(silence(20))
		for len(cl.events) > 0 {
			ev := cl.next()
			got = append(got, ev)
			if ev.Type == "error" && !errorsOK {
				cl.t.Fatalf("error event %s", ev.raw)
			}
			if ev.Type == typ {
				return got
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cl.t.Fatalf("no %s; events %v", typ, types(got))
	return nil
}

func types(evs []event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// TestAnswer: in either client dialect, the session is created in the
// GA shape, the update's instructions and voice are taken, and a turn
// heard is answered: the LLM asked with the instructions as the system
// prompt and the transcript, its text streamed as text and transcript
// deltas, each sentence spoken in the session's voice, the audio in
// deltas of at most 100 ms (a sentence's last one shorter), then the
// done events, response.done completed last. The next turn's request
// carries the conversation.
func TestAnswer(t *testing.T) {
	updates := map[string]map[string]any{
		"ga": {"type": "realtime", "instructions": "Be brief.", "audio": map[string]any{
			"input":  map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": 24000}, "turn_detection": map[string]any{"type": "server_vad"}},
			"output": map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": 24000}, "voice": "en-gb"}}},
		"beta": {"input_audio_format": "pcm16", "output_audio_format": "pcm16", "turn_detection": map[string]any{"type": "server_vad"},
			"voice": "en-gb", "instructions": "Be brief."},
	}
	for name, update := range updates {
		t.Run(name, func(t *testing.T) {
			llm := &streamtest.FakeLlama{Pieces: []string{"We open ", "at nine. ", "See you", " then!"}, Delay: 5 * time.Millisecond}
			voice := &fakeVoice{Pieces: 6} // 150 ms a sentence
			url := serve(t, &Agent{LLM: &endpoint.Endpoint{Base: llm.Start(t)}, Ears: &fakeEars{transcript: "when do you open"}, Voice: voice, MaxTokens: 50})
			cl := dial(t, url)
			created := cl.next()
			var sess struct {
				Type  string
				Audio struct {
					Output struct {
						Format struct {
							Type string
							Rate int
						}
					}
				}
			}
			if created.Type != "session.created" || json.Unmarshal(created.Session, &sess) != nil || sess.Type != "realtime" ||
				sess.Audio.Output.Format.Rate != 24000 || sess.Audio.Output.Format.Type != "audio/pcm" {
				t.Fatalf("first event %s", created.raw)
			}
			cl.send(map[string]any{"type": "session.update", "session": update})
			if ev := cl.next(); ev.Type != "session.updated" || !strings.Contains(ev.raw, `"voice":"en-gb"`) || !strings.Contains(ev.raw, `"instructions":"Be brief."`) {
				t.Fatalf("after session.update: %s", ev.raw)
			}
			got := speakTurn(cl, "response.done")
			want := []string{"input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
				"conversation.item.input_audio_transcription.completed", "response.created"}
			if strings.Join(types(got[:4]), " ") != strings.Join(want, " ") {
				t.Fatalf("events %v", types(got))
			}
			var text, transcript string
			var audio []byte
			var deltas []int
			var tail []string
			for _, ev := range got[4:] {
				switch ev.Type {
				case "response.output_text.delta":
					text += ev.Delta
				case "response.output_audio_transcript.delta":
					transcript += ev.Delta
				case "response.output_audio.delta":
					b, err := base64.StdEncoding.DecodeString(ev.Delta)
					if err != nil {
						t.Fatal(err)
					}
					audio = append(audio, b...)
					deltas = append(deltas, len(b))
					tail = nil
				default:
					tail = append(tail, ev.Type)
				}
			}
			if text != "We open at nine. See you then!" || transcript != text {
				t.Errorf("text %q, transcript %q", text, transcript)
			}
			said, voices, _ := voice.record()
			if strings.Join(said, "|") != "We open at nine.|See you then!" || voices[0] != "en-gb" {
				t.Errorf("spoken %q in %v", said, voices)
			}
			// 2 sentences of 150 ms: 100 + 50 ms each.
			if len(audio) != 2*150*bytesPerMs || len(deltas) != 4 || deltas[0] != 100*bytesPerMs || deltas[1] != 50*bytesPerMs {
				t.Errorf("audio %d bytes in deltas %v", len(audio), deltas)
			}
			wantTail := "response.output_audio.done response.output_audio_transcript.done response.output_text.done response.content_part.done response.output_item.done response.done"
			if strings.Join(tail, " ") != wantTail {
				t.Errorf("after the audio: %v", tail)
			}
			if done := got[len(got)-1]; done.Response == nil || done.Response.Status != "completed" {
				t.Errorf("response.done %s", done.raw)
			}
			body := llm.LastBody(t)
			msgs, _ := json.Marshal(body["messages"])
			if string(msgs) != `[{"content":"Be brief.","role":"system"},{"content":"when do you open","role":"user"}]` || body["stream"] != true || body["max_tokens"] != 50.0 {
				t.Errorf("LLM request %v", body)
			}
			speakTurn(cl, "response.done")
			msgs, _ = json.Marshal(llm.LastBody(t)["messages"])
			if !strings.Contains(string(msgs), `{"content":"We open at nine. See you then!","role":"assistant"},{"content":"when do you open","role":"user"}]`) {
				t.Errorf("second turn's messages %s", msgs)
			}
		})
	}
}

// TestCancel: a response.cancel while the answer is spoken stops it at
// once: response.done cancelled (client_cancelled) is its last event, the
// LLM server sees its connection closed, the speech engine's context
// ends. A truncate at 150 ms of the audio keeps the words heard, which
// the next turn's request carries; a second cancel has nothing to
// cancel.
func TestCancel(t *testing.T) {
	pieces := []string{"One two three four. "}
	for i := 0; i < 200; i++ {
		pieces = append(pieces, "more ")
	}
	llm := &streamtest.FakeLlama{Pieces: pieces, Delay: 10 * time.Millisecond}
	voice := &fakeVoice{Pieces: 16, Delay: 20 * time.Millisecond} // 400 ms a sentence
	url := serve(t, &Agent{LLM: &endpoint.Endpoint{Base: llm.Start(t)}, Ears: &fakeEars{transcript: "count"}, Voice: voice})
	cl := dial(t, url)
	cl.next()
	got := speakTurn(cl, "response.output_audio.delta")
	item := got[len(got)-1].ItemID
	// Wait for the second delta (the sentence's audio still coming).
	got = append(got, cl.until("response.output_audio.delta")...)
	cl.send(map[string]any{"type": "response.cancel"})
	rest := cl.until("response.done")
	got = append(got, rest...)
	audioMs := 0
	for _, ev := range got {
		if ev.Type == "response.output_audio.delta" {
			b, _ := base64.StdEncoding.DecodeString(ev.Delta)
			audioMs += len(b) / bytesPerMs
		}
	}
	done := rest[len(rest)-1]
	if done.Response == nil || done.Response.Status != "cancelled" || done.Response.StatusDetails == nil || done.Response.StatusDetails.Reason != "client_cancelled" {
		t.Fatalf("response.done %s", done.raw)
	}
	select {
	case <-llm.Gone():
	case <-time.After(5 * time.Second):
		t.Fatal("the LLM server did not see the stream cut")
	}
	if ev, quiet := cl.quiet(300 * time.Millisecond); !quiet {
		t.Fatalf("after response.done: %s", ev.raw)
	}
	if _, _, stopped := voice.record(); stopped != 1 {
		t.Errorf("the speech engine was stopped %d times", stopped)
	}
	cl.send(map[string]any{"type": "conversation.item.truncate", "item_id": item, "content_index": 0, "audio_end_ms": 150})
	if ev := cl.next(); ev.Type != "conversation.item.truncated" || ev.ItemID != item || *ev.AudioEndMs != 150 {
		t.Fatalf("after truncate: %s", ev.raw)
	}
	cl.send(map[string]any{"type": "response.cancel"})
	if ev := cl.next(); ev.Type != "error" || ev.Error.Code != "response_cancel_not_active" {
		t.Fatalf("a cancel of nothing: %s", ev.raw)
	}
	llm.Pieces = []string{"Ok."}
	speakTurn(cl, "response.done")
	msgs, _ := json.Marshal(llm.LastBody(t)["messages"])
	// 150 of the sentence's audio sent when it was cut (200 ms, unless
	// the cancel came after a third delta): that share of its four words.
	heard := strings.Join(strings.Fields("One two three four.")[:4*150/audioMs], " ")
	if !strings.Contains(string(msgs), `{"content":"count","role":"user"},{"content":"`+heard+`","role":"assistant"},{"content":"count","role":"user"}`) {
		t.Errorf("after the truncate at 150 of %d ms, the next request's messages %s, want %q", audioMs, msgs, heard)
	}
}

// TestBargeIn: the caller speaking over the answer stops it as a cancel
// does (server_vad's interruption: response.done cancelled,
// turn_detected), and the new turn is answered.
func TestBargeIn(t *testing.T) {
	pieces := []string{"Hello there. "}
	for i := 0; i < 200; i++ {
		pieces = append(pieces, "and ")
	}
	llm := &streamtest.FakeLlama{Pieces: pieces, Delay: 10 * time.Millisecond}
	voice := &fakeVoice{Pieces: 8, Delay: 20 * time.Millisecond}
	url := serve(t, &Agent{LLM: &endpoint.Endpoint{Base: llm.Start(t)}, Ears: &fakeEars{transcript: "hi"}, Voice: voice})
	cl := dial(t, url)
	cl.next()
	first := speakTurn(cl, "response.output_audio.delta")
	resp := first[len(first)-1].ResponseID
	cl.appendPCM(tone(100))
	got := cl.until("response.done")
	done := got[len(got)-1]
	if !strings.Contains(strings.Join(types(got), " "), "input_audio_buffer.speech_started") || done.Response.ID != resp || done.Response.Status != "cancelled" || done.Response.StatusDetails.Reason != "turn_detected" {
		t.Fatalf("barge-in: %v, done %s", types(got), done.raw)
	}
	llm.Pieces = []string{"Yes?"}
	next := speakTurn(cl, "response.done")
	if d := next[len(next)-1]; d.Response.Status != "completed" || d.Response.ID == resp {
		t.Errorf("the next turn: %s", d.raw)
	}
}

// TestRefusals: what the agent does not take is an error event in
// OpenAI's shape, and the session goes on; no engine is needed to say
// so.
func TestRefusals(t *testing.T) {
	a := &Agent{LLM: &endpoint.Endpoint{Base: "http://127.0.0.1:1"}, Ears: Pocketsphinx{&pocketsphinx.Server{Bin: "/nonexistent/pocketsphinx"}}, Voice: &fakeVoice{}}
	cl := dial(t, serve(t, a))
	cl.next()
	cases := []struct {
		event any
		code  string
		want  string
	}{
		{map[string]any{"type": "input_audio_buffer.flush"}, "invalid_value", `event type "input_audio_buffer.flush" is not served`},
		{map[string]any{"type": "input_audio_buffer.append", "audio": "not base64!"}, "invalid_value", "audio is not base64"},
		{map[string]any{"type": "response.cancel"}, "response_cancel_not_active", "no active response"},
		{map[string]any{"type": "conversation.item.truncate", "item_id": "item_x", "audio_end_ms": 10}, "invalid_value", `item_id "item_x" is no answer`},
		{map[string]any{"type": "session.update", "session": map[string]any{"audio": map[string]any{"output": map[string]any{"format": map[string]any{"type": "audio/pcm", "rate": 16000}}}}},
			"invalid_value", "16000 Hz is not served"},
		{map[string]any{"type": "session.update", "session": map[string]any{"output_audio_format": "g711_ulaw"}}, "invalid_value", `"g711_ulaw" is not served`},
		{map[string]any{"type": "session.update", "session": map[string]any{"turn_detection": map[string]any{"type": "semantic_vad"}}}, "invalid_value", "server_vad"},
		{map[string]any{"type": "session.update", "session": map[string]any{"audio": map[string]any{"input": map[string]any{"format": map[string]any{"type": "audio/pcmu"}}}}},
			"invalid_value", `"audio/pcmu" is not served`},
	}
	for _, c := range cases {
		cl.send(c.event)
		ev := cl.next()
		if ev.Type != "error" || ev.Error == nil || ev.Error.Type != "invalid_request_error" || ev.Error.Code != c.code || !strings.Contains(ev.Error.Message, c.want) {
			t.Errorf("%v: %s, want an error %s with %q", c.event, ev.raw, c.code, c.want)
		}
	}
	cl.c.Write(t.Context(), 1, []byte("{"))
	if ev := cl.next(); ev.Type != "error" || ev.Error.Code != "invalid_json" {
		t.Errorf("not JSON: %s", ev.raw)
	}
	cl.send(map[string]any{"type": "session.update", "session": map[string]any{"instructions": "x"}})
	if ev := cl.next(); ev.Type != "session.updated" {
		t.Errorf("after the errors: %s", ev.raw)
	}
}

// TestLLMFailure: an LLM server that cannot be reached fails the answer:
// an error event (server_error) and response.done failed.
func TestLLMFailure(t *testing.T) {
	url := serve(t, &Agent{LLM: &endpoint.Endpoint{Base: "http://127.0.0.1:1"}, Ears: &fakeEars{transcript: "hi"}, Voice: &fakeVoice{}})
	cl := dial(t, url)
	cl.next()
	got := turn(cl, "response.done", true)
	errEv, done := got[len(got)-2], got[len(got)-1]
	if errEv.Type != "error" || errEv.Error.Type != "server_error" || !strings.Contains(errEv.Error.Message, "the LLM server") || done.Response.Status != "failed" {
		t.Fatalf("events %v: %s %s", types(got), errEv.raw, done.raw)
	}
}
