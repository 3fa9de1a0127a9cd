package streammany

import (
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/voice"
	"ttftlab/runtime/request"
)

// TestRowAgreesWithInfoTurn: for one stream result, the row of a spoken
// turn (load --stt, stream_many's stt) has the figures stream()'s
// info.turn has for it, spoken (the first audio the answer's) or not (no
// first audio): mouth to ear, the final transcript, the endpointing and
// the word error rate, to the last bit.
func TestRowAgreesWithInfoTurn(t *testing.T) {
	start := time.Now()
	stopped := 1350.0
	said := "When do you open on Saturday?"
	r := &stt.Result{Start: start, API: stt.APIRealtime, Rate: 24000, AudioMs: 1400, SpeechEndMs: 1200.25,
		SpeechStoppedMs: &stopped, FinalMs: 1500.5, Text: "what time do you open on saturday"}
	res := &stream.Result{Chunks: []stream.Chunk{{TMs: 80, Text: "We open", Index: 1}, {TMs: 120.5, Text: " at nine.", Index: 2},
		{TMs: 200, Text: " See you then.", Index: 3}}, TotalMs: 210}
	res.Info.T0, res.Info.HasTTFT, res.Info.TTFTMs, res.Info.Done = start.Add(1510250*time.Microsecond), true, 80, true
	ttsSent, audio := 126.125, 190.75
	answer := &voice.Answer{Sentences: []voice.Sentence{{Text: "We open at nine.", ReadyMs: 125, TTSSentMs: &ttsSent, FirstAudioMs: &audio}},
		FirstAudioMs: &audio}
	h := &heardTurn{text: said, clip: &callaudio.Clip{Text: said, Rate: 16000, Samples: make([]int16, 16000)}, result: r}
	L := lua.NewState()
	defer L.Close()
	for _, c := range []struct {
		name   string
		answer *voice.Answer
	}{{"spoken", answer}, {"not spoken", nil}} {
		var rec artifact.Request
		h.fillHeard(&rec, res, c.answer)
		info := request.TurnInfo(L, h.said(), "", r, res, c.answer)
		parts, ok := info.RawGetString("parts").(*lua.LTable)
		if !ok {
			t.Fatalf("%s: info.turn has no parts", c.name)
		}
		if c.answer != nil && rec.MouthToEarMs == nil {
			t.Fatalf("%s: the row has no mouth_to_ear_ms", c.name)
		}
		if rec.WER == nil || rec.SttFinalMs == nil || rec.EndpointingMs == nil {
			t.Fatalf("%s: the row lacks a figure: %+v", c.name, rec)
		}
		for _, f := range []struct {
			name string
			row  *float64
			info lua.LValue
		}{{"mouth_to_ear_ms", rec.MouthToEarMs, parts.RawGetString("mouth_to_ear_ms")},
			{"stt_final_ms", rec.SttFinalMs, parts.RawGetString("stt_final_ms")},
			{"endpointing_ms", rec.EndpointingMs, parts.RawGetString("endpointing_ms")},
			{"wer", rec.WER, info.RawGetString("wer")}} {
			if f.row == nil {
				if f.info != lua.LNil {
					t.Errorf("%s: %s: the row has none, info.turn %v", c.name, f.name, f.info)
				}
				continue
			}
			if n, ok := f.info.(lua.LNumber); !ok || float64(n) != *f.row {
				t.Errorf("%s: %s: the row has %v, info.turn %v", c.name, f.name, *f.row, f.info)
			}
		}
	}
}
