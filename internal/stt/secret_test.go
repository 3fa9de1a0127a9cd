package stt

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stt/stttest"
)

// headerSecret is the value of a secret header (by its name) the tests
// send beside the key.
const headerSecret = "hdr-secret-7788"

// echoed are the request headers the echoing fakes quote.
var echoed = []string{"Authorization", "X-Api-Secret"}

// secretConfig is cfg's protocol at base with the key and a secret
// header.
func secretConfig(base string, api API) Config {
	cfg := testConfig(base, api)
	cfg.Endpoint.Header = map[string]string{"X-Api-Secret": headerSecret}
	cfg.Timeout = 3 * time.Second
	return cfg
}

// noSecret fails when s holds the key or the secret header's value, or
// (want) lacks the redaction in their place.
func noSecret(t *testing.T, what, s string, want bool) {
	t.Helper()
	if strings.Contains(s, testKey) || strings.Contains(s, headerSecret) || strings.Contains(s, "sk-test") {
		t.Fatalf("%s holds a secret: %q", what, s)
	}
	if want && !strings.Contains(s, endpoint.Redacted) {
		t.Fatalf("%s: %q, want %s where the server echoed the secrets", what, s, endpoint.Redacted)
	}
}

// A server that echoes the key and a secret header's value in the
// transcript (JSON, or server-sent deltas of 3 bytes, so each secret is
// cut across several events) or in its error: the transcript and the
// message hold [redacted] in their place.
func TestUploadEchoedSecretsRedacted(t *testing.T) {
	clip := clipOf(120)
	for _, api := range uploadAPIs {
		fake := stttest.Start(&stttest.Server{Kind: fakeKind(api), Text: "what time is it", Echo: echoed, DeltaBytes: 3})
		res, err := Transcribe(context.Background(), secretConfig(fake.URL, api), clip)
		fake.Close()
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if !strings.HasPrefix(res.Text, "what time is it heard Bearer ") {
			t.Fatalf("%s: text %q", api, res.Text)
		}
		noSecret(t, string(api)+" transcript", res.Text, true)
		if api == APIOpenAIStream && res.FirstPartialMs == nil {
			t.Fatalf("%s: no first partial", api)
		}

		fake = stttest.Start(&stttest.Server{Kind: fakeKind(api), Status: 500, Echo: echoed})
		_, err = Transcribe(context.Background(), secretConfig(fake.URL, api), clip)
		fake.Close()
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindHTTP {
			t.Fatalf("%s: error %v", api, err)
		}
		noSecret(t, string(api)+" error", e.Msg, true)
	}
}

func TestRealtimeEchoedSecretsRedacted(t *testing.T) {
	clip := toneClip(RealtimeRate, 0, 200, 0)
	fake := &stttest.Realtime{Echo: echoed}
	res, err := Transcribe(context.Background(), secretConfig(fake.Start(t), APIRealtime), clip)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "hello world heard Bearer ") {
		t.Fatalf("text %q", res.Text)
	}
	noSecret(t, "transcript", res.Text, true)

	fake = &stttest.Realtime{Echo: echoed, ErrorMsg: "no such model"}
	_, err = Transcribe(context.Background(), secretConfig(fake.Start(t), APIRealtime), clip)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindServer {
		t.Fatalf("error %v", err)
	}
	noSecret(t, "error", e.Msg, true)
}

func TestVLLMRealtimeEchoedSecretsRedacted(t *testing.T) {
	clip := toneClip(VLLMRealtimeRate, 0, 200, 0)
	for _, fake := range []*stttest.VLLMRealtime{
		{Echo: echoed, DeltaBytes: 3},
		{Echo: echoed, DeltaBytes: 3, NoDoneText: true},
	} {
		res, err := Transcribe(context.Background(), secretConfig(fake.Start(t), APIVLLMRealtime), clip)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Text, "hello world heard Bearer ") {
			t.Fatalf("text %q (done without text: %v)", res.Text, fake.NoDoneText)
		}
		noSecret(t, "transcript", res.Text, true)
	}
	fake := &stttest.VLLMRealtime{Echo: echoed, ErrorMsg: "no such model"}
	_, err := Transcribe(context.Background(), secretConfig(fake.Start(t), APIVLLMRealtime), clip)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindServer {
		t.Fatalf("error %v", err)
	}
	noSecret(t, "error", e.Msg, true)
}

// A body that is no transcript is quoted in the message, shortened: a
// key the shortening cuts does not show its start either.
func TestUploadEchoCutInExcerpt(t *testing.T) {
	for pad := 180; pad <= 200; pad += 4 {
		fake := stttest.Start(&stttest.Server{Kind: stttest.OpenAI, Raw: strings.Repeat("x", pad) + "Bearer " + testKey + " tail", RawType: "text/html"})
		_, err := Transcribe(context.Background(), secretConfig(fake.URL, APIOpenAI), clipOf(60))
		fake.Close()
		e := failed(t, "not JSON", err, KindBadData, "not JSON", `"...`)
		if strings.Contains(e.Msg, testKey[:4]) {
			t.Fatalf("the key's start shows in %q", e.Msg)
		}
	}
}
