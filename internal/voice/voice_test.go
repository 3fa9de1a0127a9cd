package voice

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream"
	"ttftlab/internal/stream/streamtest"
)

// speech answers 24 kHz PCM: 200 ms of audio in 4 pieces, 20 ms apart;
// a text with "Broken" gets a 500.
func speech(t *testing.T) *endpoint.Endpoint {
	t.Helper()
	piece := make([]byte, 2*24000/20) // 50 ms
	for i := range piece {
		piece[i] = byte(i) | 1
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input, Voice string }
		json.NewDecoder(r.Body).Decode(&req)
		if strings.Contains(req.Input, "Broken") {
			http.Error(w, `{"error":{"message":"no voice"}}`, 500)
			return
		}
		w.Header().Set("Content-Type", "audio/pcm")
		for i := 0; i < 4; i++ {
			if i > 0 {
				time.Sleep(20 * time.Millisecond)
			}
			w.Write(piece)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return &endpoint.Endpoint{Base: srv.URL}
}

// TestPipeline: an answer of three sentences, one whose speech fails, each
// sent as it completes: the times follow the pipeline's order on the
// answer's axis, the failed one is named and not played, the voice
// follows the script, and the first audio is the first heard sentence's.
func TestPipeline(t *testing.T) {
	llm := (&streamtest.FakeLlama{Pieces: []string{"Hello there. ", "Broken voice. ", "你好。", "Bye"}, Delay: 5 * time.Millisecond}).Start(t)
	p := Start(context.Background(), Speech{Endpoint: speech(t)})
	req := stream.Request{URL: llm, Body: []byte(`{"messages":[],"stream":true}`), OnChunk: func(c stream.Chunk) (bool, error) {
		p.Chunk(c)
		return true, nil
	}}
	res, err := stream.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	p.End(res, nil)
	a := p.Wait(res.Info.T0)
	if len(a.Sentences) != 4 {
		t.Fatalf("%d sentences: %+v", len(a.Sentences), a.Sentences)
	}
	s := a.Sentences
	if s[0].Text != "Hello there." || s[2].Text != "你好。" || s[2].Voice != "cmn" || s[3].Text != "Bye" || s[0].Voice != "en" {
		t.Fatalf("texts and voices: %+v", s)
	}
	for i, x := range []Sentence{s[0], s[2], s[3]} {
		if x.Err != nil || !(x.ReadyMs <= *x.TTSSentMs && *x.TTSSentMs <= *x.FirstAudioMs && *x.FirstAudioMs <= *x.AudioDoneMs) ||
			x.AudioMs != 200 || *x.StartMs < *x.FirstAudioMs {
			t.Fatalf("sentence %d: %+v", i, x)
		}
	}
	if s[1].Err == nil || !strings.Contains(s[1].Err.Error(), "500") || s[1].StartMs != nil || a.Errors != 1 {
		t.Fatalf("the broken one: %+v, errors %d", s[1], a.Errors)
	}
	if *a.FirstAudioMs != *s[0].FirstAudioMs || s[3].ReadyMs != res.TotalMs || *a.SpeakEndMs != *s[3].EndMs {
		t.Fatalf("answer: %+v", a)
	}
}

// TestPipelineCut: a cut answer hangs up its speech and sends nothing
// more.
func TestPipelineCut(t *testing.T) {
	llm := (&streamtest.FakeLlama{Pieces: []string{"One. ", "Two. ", "Three. ", "Four."}, Delay: 30 * time.Millisecond}).Start(t)
	p := Start(context.Background(), Speech{Endpoint: speech(t)})
	n := 0
	res, err := stream.Do(context.Background(), stream.Request{URL: llm, Body: []byte(`{}`), OnChunk: func(c stream.Chunk) (bool, error) {
		p.Chunk(c)
		n++
		return n < 2, nil
	}})
	if err != nil || !res.Info.Cut {
		t.Fatalf("%v %+v", err, res.Info)
	}
	p.End(res, err)
	a := p.Wait(res.Info.T0)
	// "One." and "Two." were complete before the cut; nothing after.
	if len(a.Sentences) != 2 || a.Sentences[1].Text != "Two." || a.Errors != 0 {
		t.Fatalf("%+v", a)
	}
}

// TestPipelineClause: with Clause the first clause goes as soon as it is
// decided, before its sentence is complete; the rest of that sentence and
// the next go as sentences.
func TestPipelineClause(t *testing.T) {
	llm := (&streamtest.FakeLlama{Pieces: []string{"Your appointment on Tuesday, ", "at ten in the morning, is confirmed. ", "Bye."}}).Start(t)
	p := Start(context.Background(), Speech{Endpoint: speech(t), Clause: true})
	res, err := stream.Do(context.Background(), stream.Request{URL: llm, Body: []byte(`{}`), OnChunk: func(c stream.Chunk) (bool, error) {
		p.Chunk(c)
		return true, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	p.End(res, nil)
	a := p.Wait(res.Info.T0)
	var texts []string
	for _, s := range a.Sentences {
		texts = append(texts, s.Text)
	}
	want := []string{"Your appointment on Tuesday,", "at ten in the morning, is confirmed.", "Bye."}
	if strings.Join(texts, "|") != strings.Join(want, "|") || a.Sentences[0].ReadyMs != res.Chunks[0].TMs {
		t.Fatalf("sent %q (first at %v, chunk 1 at %v)", texts, a.Sentences[0].ReadyMs, res.Chunks[0].TMs)
	}
}
