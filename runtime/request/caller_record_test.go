package request

import (
	"strings"
	"testing"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stt"
)

// TestCallerRecord: the caller's side as load.json and stt_info() record
// it: the protocol the URL names when --stt-api did not say, the URL
// without the password it holds, the key only as where it was set, the
// caller's audio folder; nil without a server.
func TestCallerRecord(t *testing.T) {
	var none *Caller
	if none.Record() != nil || (&Caller{}).Record() != nil {
		t.Error("a record without a speech-to-text server")
	}
	c := &Caller{Engine: "pocketsphinx 5.1.1", AudioDir: "/calls", STT: stt.Config{Language: "en",
		Endpoint: &endpoint.Endpoint{Base: "http://me:hunter2@127.0.0.1:9/inference", Key: "sk-1", KeySource: "--stt-api-key", Model: "m"}}}
	r := c.Record()
	if r.API != "whisper" || strings.Contains(r.URL, "hunter2") || !strings.HasSuffix(r.URL, "@127.0.0.1:9/inference") || r.APIKey != "set from --stt-api-key" ||
		r.Engine != c.Engine || r.Model != "m" || r.Language != "en" || r.CallerAudio != "/calls" {
		t.Errorf("record %+v", r)
	}
	c.STT.API = stt.APIOpenAIStream
	if r := c.Record(); r.API != "openai-stream" {
		t.Errorf("--stt-api openai-stream recorded as %q", r.API)
	}
}
