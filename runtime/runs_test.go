package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The runs and ab bindings as the host wires them: a stream's first
// sentence read by the stdlib's sentence module, the patched VM's
// upvalues, a cancelled context. Their own behaviour is tested in
// package runs.

func TestRunsStreamResults(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	err := vm.RunString(`
		local function fake(i, failed)
			local info = {done = not failed, cut = false, status = 200, ttft_ms = 5 + i}
			if failed then info.error = "stream: connection refused" end
			return {{t_ms = 5 + i, text = "Hello there."}, {t_ms = 9 + i, text = " More"}}, 20 + i, nil, info
		end
		local f = runs(4, function(i) return fake(i, i == 4) end)
		assert(f.ttft_ms.n == 4 and f.ttft_ms.failed == 1 and f.ttft_ms.over == "requests, one per call of fn", "ttft")
		-- "Hello there." is complete when " More" shows it ended: at 9 + i.
		assert(f.first_sentence_ms.n == 4 and f.first_sentence_ms.p50 == 11.5, "first sentence from the chunks: " .. tostring(f.first_sentence_ms.p50))
		assert(f.total_ms.failed == 1 and f.total_ms.mean == nil and f.total_ms.run_means[1] == 21, "total")
		local g = runs(2, function(i)
			local c, total, tm, info = fake(i)
			info.first_sentence_ms = 100
			return c, total, tm, info
		end)
		assert(g.first_sentence_ms.p50 == 100, "ask's first_sentence_ms is taken as it is")
	`, "stream_runs.lua")
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunsKeepsLua51Upvalues: an error caught around runs leaves the
// locals that closures share with the script shared, as in Lua 5.1.
func TestRunsKeepsLua51Upvalues(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	err := vm.RunString(`
		local n = 0
		local function inc() n = n + 1 end
		local ok = pcall(runs, 3, function(i) inc() if i == 2 then error("x") end return i end)
		assert(not ok)
		inc()
		assert(n == 3, "n = " .. n)
		local ok2 = pcall(ab, function() inc() return 1 end, function() error({}) end, {quiet = true})
		inc()
		assert(not ok2 and n == 5, "n = " .. n)
	`, "upvalues.lua")
	if err != nil {
		t.Fatal(err)
	}
}

// TestABStopsOnCancel: a cancelled run (Ctrl-C) stops ab at once, even
// inside a pcall, and the error says it was cancelled.
func TestABStopsOnCancel(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := vm.Eval(ctx, `
		calls = 0
		pcall(ab, function() calls = calls + 1 sleep_ms(50) return 1 end, function() sleep_ms(50) return 2 end, {runs = 1000, quiet = true})
		done = true
	`, "cancel.lua")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if vm.L.GetGlobal("done") != lua.LNil {
		t.Fatal("the script went on after the cancel")
	}
	if calls := vm.L.GetGlobal("calls").(lua.LNumber); int(calls) >= 1000 || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("ab ran %v runs of A", calls)
	}
}
