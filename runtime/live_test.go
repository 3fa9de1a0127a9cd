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

// TestStreamManyRealServer: against the real llama-server with 4 slots,
// 4 requests at once all succeed and wait more for their first token than
// one at a time does; every stream's stamps are in order. Voice calls of
// several turns keep their cache from turn to turn.
func TestStreamManyRealServer(t *testing.T) {
	srv := llamatest.Start(t, "-np", "4", "-c", "8192")
	vm, out := testVM(t, Config{Server: srv.URL})
	err := vm.RunString(`
		local function level(c)
			local results, summary = stream_many(function(i)
				if i > 12 then return nil end
				return "Once upon a time there was a girl named Lily who", {max_tokens = 48, cache_prompt = false}
			end, {concurrency = c})
			assert(#results == 12 and summary.ok == 12, "level " .. c .. ": " .. summary.ok .. " ok")
			for _, r in ipairs(results) do
				for k = 2, #r.chunks do
					assert(r.chunks[k].t_ms >= r.chunks[k - 1].t_ms, "stamps out of order")
				end
			end
			return summary.ttft_ms.p50
		end
		local one, four = level(1), level(4)
		print("p50", one, four, four >= one)
		local calls = require("calls")
		local turns, summary = calls.run({calls = 4, turns = 3, concurrency = 4, think_ms = 20, opts = {max_tokens = 24}})
		assert(summary.ok == 12, summary.ok .. " turns ok")
		for _, r in ipairs(turns) do
			if r.tags.turn > 1 then assert(r.timings.cache_n > 0, "turn " .. r.tags.turn .. " of call " .. r.tags.call .. " lost its cache") end
		end
		print("calls ok", summary.by_turn[3].cache_n.p50 > summary.by_turn[2].cache_n.p50)`, "many.lua")
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\ttrue\n") || !strings.Contains(out.String(), "calls ok\ttrue") {
		t.Errorf("p50 at 4 must not be below p50 at 1, and the history must grow the cache:\n%s", out.String())
	}
}
