package stt

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/audio"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stt/stttest"
)

// testClip is 240 ms of a tone then 100 ms of silence at 22.05 kHz.
func testClip() *callaudio.Clip { return clipOf(340) }

// clipOf is ms of audio: a tone, its last 100 ms silence.
func clipOf(ms int) *callaudio.Clip {
	c := &callaudio.Clip{Rate: 22050, Text: "what time is it"}
	for i := 0; i < 22050*ms/1000; i++ {
		v := 0.0
		if i < 22050*(ms-100)/1000 {
			v = 8000 * math.Sin(float64(i)/4)
		}
		c.Samples = append(c.Samples, int16(v))
	}
	return c
}

const testKey = "sk-test-secret-4242"

func testConfig(base string, api API) Config {
	return Config{API: api, Language: "en", Endpoint: &endpoint.Endpoint{Base: base, Key: testKey, Header: map[string]string{"X-Team": "voice"}}}
}

// at is a stamp of r as an instant.
func at(r *Result, ms float64) time.Time {
	return r.Start.Add(time.Duration(ms * float64(time.Millisecond)))
}

func TestUploadStampsAndRequest(t *testing.T) {
	clip := testClip()
	for _, tc := range []struct {
		api   API
		kind  stttest.Kind
		base  string // appended to the fake's URL
		path  string
		queue string
	}{
		{APIOpenAI, stttest.OpenAI, "", "/v1/audio/transcriptions", "12.5"},
		{APIOpenAI, stttest.OpenAI, "/v1", "/v1/audio/transcriptions", ""},
		{APIOpenAIStream, stttest.OpenAI, "/v1", "/v1/audio/transcriptions", ""},
		{APIWhisper, stttest.Whisper, "", "/inference", ""},
		{APIWhisper, stttest.Whisper, "/inference", "/inference", ""},
	} {
		name := string(tc.api) + " " + tc.base
		fake := stttest.Start(&stttest.Server{Kind: tc.kind, Text: "what time is it", Delay: 150 * time.Millisecond, QueueMs: tc.queue})
		cfg := testConfig(fake.URL+tc.base, tc.api)
		res, err := Transcribe(context.Background(), cfg, clip)
		returned := time.Now()
		fake.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs := fake.Received()
		if len(recs) != 1 {
			t.Fatalf("%s: the fake got %d requests", name, len(recs))
		}
		rec := recs[0]
		if res.Text != "what time is it" || res.API != tc.api || res.Rate != 16000 || res.AudioMs != clip.DurationMs() {
			t.Fatalf("%s: result %+v", name, res)
		}
		// The request: path, headers, fields, the file a 16 kHz WAV of the clip.
		if rec.Path != tc.path || rec.Header.Get("Authorization") != "Bearer "+testKey || rec.Header.Get("X-Team") != "voice" {
			t.Errorf("%s: path %s, headers %v", name, rec.Path, rec.Header)
		}
		if rec.ContentLength <= 0 || rec.Header.Get("Transfer-Encoding") != "" {
			t.Errorf("%s: Content-Length %d, Transfer-Encoding %q: want the length up front", name, rec.ContentLength, rec.Header.Get("Transfer-Encoding"))
		}
		want := map[string]string{"response_format": "json", "language": "en"}
		switch tc.api {
		case APIOpenAI:
			want["model"] = "whisper-1"
		case APIOpenAIStream:
			want["model"], want["stream"] = "whisper-1", "true"
		}
		if len(rec.Fields) != len(want) {
			t.Errorf("%s: fields %v, want %v", name, rec.Fields, want)
		}
		for k, v := range want {
			if rec.Fields[k] != v {
				t.Errorf("%s: field %s = %q, want %q", name, k, rec.Fields[k], v)
			}
		}
		f, data, err := audio.DecodeWAV(rec.File)
		if err != nil || rec.FileType != "audio/wav" || f.SampleRate != 16000 || f.Channels != 1 || f.BitsPerSample != 16 ||
			len(data)/2 != len(clip.Resample(16000).Samples) {
			t.Errorf("%s: file %s %+v, %d samples, %v", name, rec.FileType, f, len(data)/2, err)
		}
		// Nothing left before the caller's audio ended.
		if rec.HeadAt.Before(at(res, res.AudioMs)) || res.SentMs < res.AudioMs {
			t.Errorf("%s: the request arrived %v after Start, sent at %.1f ms; the audio lasts %.1f ms",
				name, rec.HeadAt.Sub(res.Start), res.SentMs, res.AudioMs)
		}
		if res.SpeechEndMs != clip.SpeechEndMs(callaudio.DefaultFrameMs) || !(res.SpeechEndMs < res.AudioMs) {
			t.Errorf("%s: speech end %.1f ms, the clip's %.1f, audio %.1f", name, res.SpeechEndMs, clip.SpeechEndMs(20), res.AudioMs)
		}
		// The known delay is measured: the final transcript comes at least
		// the fake's delay after the upload's last byte, not before the fake
		// sent it, and its stamp's error is below the delay the fake saw.
		final := at(res, res.FinalMs)
		if res.FinalMs-res.SentMs < float64(fake.Delay)/float64(time.Millisecond) {
			t.Errorf("%s: final - sent = %.1f ms, under the fake's delay %v", name, res.FinalMs-res.SentMs, fake.Delay)
		}
		if final.Before(rec.SentAt) || final.After(returned) {
			t.Errorf("%s: final at %v, the fake sent it at %v, Transcribe returned at %v (since Start)", name,
				final.Sub(res.Start), rec.SentAt.Sub(res.Start), returned.Sub(res.Start))
		}
		if final.Sub(rec.SentAt) > rec.SentAt.Sub(rec.LastByteAt) {
			t.Errorf("%s: the final stamp is %v after the fake sent it, more than the fake's own delay %v", name,
				final.Sub(rec.SentAt), rec.SentAt.Sub(rec.LastByteAt))
		}
		if tc.api == APIOpenAIStream {
			if res.FirstPartialMs == nil {
				t.Fatalf("%s: no first partial", name)
			}
			p := at(res, *res.FirstPartialMs)
			if p.Before(rec.FirstSentAt) || !p.Before(final) {
				t.Errorf("%s: first partial at %v, the fake sent it at %v, final at %v", name, p.Sub(res.Start), rec.FirstSentAt.Sub(res.Start), final.Sub(res.Start))
			}
		} else if res.FirstPartialMs != nil {
			t.Errorf("%s: a first partial without a stream", name)
		}
		if tc.queue != "" {
			if res.QueueMs == nil || *res.QueueMs != 12.5 {
				t.Errorf("%s: queue_ms %v, want 12.5 from X-Queue-Time", name, res.QueueMs)
			}
		} else if res.QueueMs != nil {
			t.Errorf("%s: queue_ms %v from a server that sends none", name, *res.QueueMs)
		}
	}
}

func TestUploadModelFromEndpoint(t *testing.T) {
	fake := stttest.New(stttest.OpenAI, "hi", 0)
	defer fake.Close()
	cfg := testConfig(fake.URL, "")
	cfg.Endpoint.Model, cfg.Language = "Systran/faster-whisper-small", ""
	if _, err := Transcribe(context.Background(), cfg, testClip()); err != nil {
		t.Fatal(err)
	}
	f := fake.Received()[0].Fields
	if f["model"] != "Systran/faster-whisper-small" || f["language"] != "" || len(f) != 2 {
		t.Fatalf("fields %v", f)
	}
}

func TestUploadFailureKinds(t *testing.T) {
	clip := clipOf(120)
	for _, tc := range []struct {
		name   string
		status int
		never  bool
		kind   string
	}{
		{"401", 401, false, KindAuth}, {"403", 403, false, KindAuth}, {"429", 429, false, KindRateLimited},
		{"500", 500, false, KindHTTP}, {"never", 0, true, KindTimeout},
	} {
		for _, api := range uploadAPIs {
			fake := stttest.Start(&stttest.Server{Kind: fakeKind(api), Text: "hi", Status: tc.status, Never: tc.never})
			cfg := testConfig(fake.URL, api)
			cfg.Timeout = 300 * time.Millisecond
			res, err := Transcribe(context.Background(), cfg, clip)
			fake.Close()
			var e *Error
			if !errors.As(err, &e) || res != nil {
				t.Fatalf("%s %s: result %v, error %v", tc.name, api, res, err)
			}
			if e.Kind != tc.kind || e.Status != tc.status || !strings.Contains(e.Msg, fake.URL) || strings.Contains(e.Msg, testKey) || e.Partial == nil {
				t.Errorf("%s %s: kind %s (want %s), status %d, message %q", tc.name, api, e.Kind, tc.kind, e.Status, e.Msg)
			}
			if tc.never && len(fake.Received()) != 1 {
				t.Errorf("%s %s: %d requests", tc.name, api, len(fake.Received()))
			}
		}
	}
}

// TestUploadWaitsForTheCaller: a context that ends while the caller
// speaks sends nothing.
func TestUploadWaitsForTheCaller(t *testing.T) {
	fake := stttest.New(stttest.OpenAI, "hi", 0)
	defer fake.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Transcribe(ctx, testConfig(fake.URL, APIOpenAI), testClip())
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindDropped || !errors.Is(err, context.Canceled) || len(fake.Received()) != 0 {
		t.Fatalf("error %v, %d requests", err, len(fake.Received()))
	}
}

// TestUploadTLS: the endpoint's TLS settings are the upload's; without
// them the fake's certificate is refused.
func TestUploadTLS(t *testing.T) {
	fake := stttest.StartTLS(&stttest.Server{Kind: stttest.OpenAI, Text: "over tls"})
	defer fake.Close()
	cfg := testConfig(fake.URL, APIOpenAI)
	_, err := Transcribe(context.Background(), cfg, clipOf(120))
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindConnect || !strings.Contains(e.Msg, "certificate") {
		t.Fatalf("an unknown certificate: %v", err)
	}
	cfg.Endpoint.TLS = fake.Client().Transport.(*http.Transport).TLSClientConfig
	res, err := Transcribe(context.Background(), cfg, clipOf(120))
	if err != nil || res.Text != "over tls" {
		t.Fatalf("with the endpoint's TLS: %v, %+v", err, res)
	}
}
