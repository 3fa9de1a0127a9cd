package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/audio"
)

// wavHead is a WAV header with placeholder sizes, as espeak-ng writes it.
func wavHead(rate int) []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
	b = append(b, "RIFF"...)
	u32(0x7ffff024)
	b = append(b, "WAVEfmt "...)
	u32(16)
	u16(1)
	u16(1)
	u32(uint32(rate))
	u32(uint32(2 * rate))
	u16(2)
	u16(16)
	b = append(b, "data"...)
	u32(0x7ffff000)
	return b
}

func frames(n int, amp int16) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		v := amp
		if i%2 == 1 {
			v = -amp
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b
}

// speechServer answers with the parts in order, a pause between them.
func speechServer(t *testing.T, ct string, parts ...[]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/speech" || !strings.Contains(r.Header.Get("Accept"), "audio/") {
			http.Error(w, "path "+r.URL.Path+" accept "+r.Header.Get("Accept"), 404)
			return
		}
		w.Header().Set("Content-Type", ct)
		for i, p := range parts {
			if i > 0 {
				time.Sleep(10 * time.Millisecond)
			}
			w.Write(p)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSpeechWAV(t *testing.T) { eachWire(t, testSpeechWAV) }

func testSpeechWAV(t *testing.T, w Wire) {
	// The header, 100 ms of silence, then 200 ms of voice, at 8 kHz.
	srv := speechServer(t, "audio/wav", wavHead(8000), frames(800, 3), frames(1600, 9000))
	res, err := Do(context.Background(), Request{URL: srv.URL, API: APISpeech, Body: []byte(`{"input":"hi"}`), Wire: w, KeepReads: true})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Audio
	if a == nil || a.Format.SampleRate != 8000 || a.HeaderBytes != 44 || a.AudioMs != 300 || a.AudioBytes != 4800 {
		t.Fatalf("audio %+v", a)
	}
	if !res.Info.Done || res.Info.Status != 200 {
		t.Fatalf("info %+v", res.Info)
	}
	if *a.VoiceStartsMs != 100 {
		t.Fatalf("voice starts at %v ms of the audio, want 100", *a.VoiceStartsMs)
	}
	// Each time is a read's stamp, in order, none after the end.
	stamped := func(v float64) bool {
		for _, r := range res.Reads {
			if r.TMs == v {
				return true
			}
		}
		return false
	}
	if !stamped(*a.FirstAudioMs) || !stamped(*a.FirstVoicedMs) || *a.FirstAudioMs < res.Info.HeadersMs ||
		*a.FirstVoicedMs < *a.FirstAudioMs || res.TotalMs < *a.FirstVoicedMs {
		t.Fatalf("headers %v, first audio %v, first voiced %v, total %v, reads %+v", res.Info.HeadersMs, *a.FirstAudioMs, *a.FirstVoicedMs, res.TotalMs, res.Reads)
	}
}

func TestSpeechPCMAndCut(t *testing.T) { eachWire(t, testSpeechPCMAndCut) }

func testSpeechPCMAndCut(t *testing.T, w Wire) {
	srv := speechServer(t, "audio/pcm", frames(2400, 5000), frames(2400, 5000), frames(2400, 5000))
	f := audio.OpenAIPCM
	res, err := Do(context.Background(), Request{URL: srv.URL, API: APISpeech, Body: []byte(`{}`), Wire: w, Speech: &Speech{PCM: &f}})
	if err != nil || res.Audio.AudioMs != 300 || res.Audio.HeaderBytes != 0 {
		t.Fatalf("%v %+v", err, res.Audio)
	}
	// A listener that hangs up after the first 100 ms of audio: a cut.
	var calls int
	res, err = Do(context.Background(), Request{URL: srv.URL, API: APISpeech, Body: []byte(`{}`), Wire: w, Speech: &Speech{PCM: &f,
		OnAudio: func(tMs float64, so audio.Result) bool { calls++; return so.AudioMs < 100 }}})
	if err != nil || !res.Info.Cut || res.Info.Done || calls == 0 || res.Audio.AudioMs < 100 || res.Audio.AudioMs >= 300 {
		t.Fatalf("cut: %v, calls %d, info %+v, audio %+v", err, calls, res.Info, res.Audio)
	}
}

func TestSpeechNotAudio(t *testing.T) { eachWire(t, testSpeechNotAudio) }

func testSpeechNotAudio(t *testing.T, w Wire) {
	srv := speechServer(t, "application/json", []byte(`{"error":"no"}`))
	_, err := Do(context.Background(), Request{URL: srv.URL, API: APISpeech, Body: []byte(`{}`), Wire: w})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNotStream || !strings.Contains(err.Error(), "did not answer audio") {
		t.Fatalf("json answer: %v", err)
	}
	mp3 := speechServer(t, "audio/mpeg", []byte("ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	_, err = Do(context.Background(), Request{URL: mp3.URL, API: APISpeech, Body: []byte(`{}`), Wire: w})
	if !errors.As(err, &e) || e.Kind != KindBadData || !strings.Contains(err.Error(), "not WAV") {
		t.Fatalf("mp3 answer: %v", err)
	}
	if _, err := ParseAPI("speech"); err == nil || slices.Contains(APINames(), "speech") {
		t.Fatal("speech is no text API: --api must not offer it")
	}
}
