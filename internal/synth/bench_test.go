package synth

import (
	"strings"
	"testing"
)

// BenchmarkSynth serves each preset with the real llama-server and reports
// its prefill and decode speed in tokens/s, from llama-server's own
// timings: prefill over a 512-token prompt, decode over 128 tokens.
//
//	go test -bench Synth -run '^$' -benchtime 3x ./synth/
//	go test -bench Synth/small -run '^$' ./synth/
func BenchmarkSynth(b *testing.B) {
	for _, name := range PresetNames() {
		b.Run(name, func(b *testing.B) {
			m := buildPreset(b, name, nil)
			srv, _ := serve(b, m)
			prompt := strings.Join(words()[:512], " ")
			ask(b, srv.URL, "warm up", "hi", 8, false)
			b.ResetTimer()
			var prefill, decode float64
			for i := 0; i < b.N; i++ {
				p, _ := ask(b, srv.URL, prompt, "Hi?", 1, false)
				d, _ := ask(b, srv.URL, "You are a clinic phone assistant.", "Hi?", 128, false)
				prefill += timing(b, p, "prompt_per_second")
				decode += timing(b, d, "predicted_per_second")
			}
			b.ReportMetric(prefill/float64(b.N), "prefill_tok/s")
			b.ReportMetric(decode/float64(b.N), "decode_tok/s")
			info := m.Info()
			b.Logf("%s: %.1f M parameters, %.1f MB, prefill %.0f tokens/s, decode %.0f tokens/s",
				info.Name, float64(info.Params)/1e6, float64(info.Bytes)/1e6, prefill/float64(b.N), decode/float64(b.N))
		})
	}
}
