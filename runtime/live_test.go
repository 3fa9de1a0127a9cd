package runtime

import (
	"strings"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
)

func TestMain(m *testing.M) { llamatest.Main(m) }

// TestLiveServer runs the bindings against the real llama-server with the
// test model.
func TestLiveServer(t *testing.T) {
	srv := llamatest.Start(t)
	vm, out := testVM(t, Config{Server: srv.URL, ServerLog: srv.LogPath})
	err := vm.RunString(`
		local h, _, status = health()
		assert(status == 200 and h.status == "ok", "server not ready")
		local p = props()
		assert(p.default_generation_settings.n_ctx > 0)
		assert(#slots() >= 1)
		local chunks, total_ms, timings, info = stream("Once upon a time", {max_tokens = 16, raw_out = "live.sse"})
		assert(#chunks > 0 and info.done and info.ttft_ms <= total_ms, "no answer")
		assert(timings.prompt_n >= 1 and timings.predicted_n >= 1)
		local again = {stream("Once upon a time", {max_tokens = 16})}
		assert(again[3].cache_n > 0, "the second identical prompt should reuse the cache")
		local n = 0
		local _, _, _, cut = stream("Once upon a time", {max_tokens = 200, on_chunk = function(c)
			n = n + 1
			if n == 3 then return false end
		end})
		assert(cut.cut and n == 3, "on_chunk false must cut")
		if SERVER_LOG then
			for _ = 1, 40 do
				if log_contains("cancel task") then break end
				sleep_ms(100)
			end
			print("cancel seen in log", log_contains("cancel task"))
		end
		write_json("live.json", {ttft_ms = info.ttft_ms, timings = timings})
		print("ok", #chunks, info.ttft_ms, timings.prompt_n, again[3].cache_n)`, "live.lua")
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "cancel seen in log\ttrue") {
		t.Errorf("the cut did not reach the server's log:\n%s", out.String())
	}
}
