package runtime

import (
	"strings"
	"testing"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/tts"
)

// TestSpeakEspeak: speak() against the real espeak-ng: the first audio
// before the end, a longer text a longer audio, the voice from the text's
// script, pcm and wav alike.
func TestSpeakEspeak(t *testing.T) {
	url := luatest.EspeakServer(t)
	vm, out := testVM(t, Config{Server: "http://127.0.0.1:1", TTS: &TTS{Endpoint: &endpoint.Endpoint{Base: url}, Model: tts.Model}})
	err := vm.L.DoString(`
		local a = speak("Hello.")
		local b = speak("Hello. Your appointment with doctor Lee is on Tuesday at ten in the morning.")
		assert(a.first_audio_ms <= a.total_ms and a.first_voiced_ms >= a.first_audio_ms, "order")
		assert(b.audio_ms > 2 * a.audio_ms, "a longer text lasts longer: " .. b.audio_ms .. " vs " .. a.audio_ms)
		assert(a.sample_rate == 24000 and a.header_bytes == 0 and a.done and not a.cut, "pcm")
		local w = speak("Hello.", {format = "wav"})
		assert(w.sample_rate == 22050 and w.header_bytes == 44, "wav")
		assert(math.abs(w.audio_ms - a.audio_ms) < 0.1, "the same audio: " .. w.audio_ms .. " vs " .. a.audio_ms)
		local z = speak("你好，欢迎光临。")
		local k = speak("안녕하세요. 반갑습니다.")
		print(a.voice, z.voice, k.voice, z.audio_ms > 0, k.audio_ms > 0)
		local cut = speak("Hello. Your appointment with doctor Lee is on Tuesday at ten in the morning.",
			{on_audio = function(t_ms, so) return false end})
		print(cut.cut, cut.done)
	`)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "en\tcmn\tko\ttrue\ttrue\ntrue\tfalse\n" {
		t.Fatalf("output %q", got)
	}
}

func TestSpeakErrors(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	for code, want := range map[string]string{
		`speak("hi")`: "no speech server: run with --tts URL",
		`speak("hi", {server = "http://127.0.0.1:1", format = "ogg"})`: `opts.format "ogg"`,
		`speak("hi", {server = "http://127.0.0.1:1", voise = "en"})`:   `unknown option "voise"; did you mean "voice"?`,
	} {
		err := vm.L.DoString(code)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", code, err, want)
		}
	}
	// A closed port: a connection error, raised or returned.
	err := vm.L.DoString(`local i = speak("hi", {server = "http://127.0.0.1:1", errors = "return"}); assert(i.error_kind == "connect", tostring(i.error_kind))`)
	if err != nil {
		t.Fatal(err)
	}
}
