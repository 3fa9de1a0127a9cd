package streammany_test

import (
	"fmt"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// TestStreamManyClientUse: the summary says what the run cost its own
// machine: the cores, the process's CPU and its share of the machine, and
// the reader threads' CPU and wait for a CPU, each within what the run
// allows (the readers' CPU within the process's, the share at most the
// whole machine, the wait at most the run's duration). With processes
// spinning on every core beside it, the readers waited.
// Fails before this change: the summary had no client.
func TestStreamManyClientUse(t *testing.T) {
	pieces := make([]string, 60)
	for i := range pieces {
		pieces[i] = fmt.Sprintf(" w%d.", i)
	}
	url := (&streamtest.FakeLlama{Pieces: pieces, Delay: time.Millisecond}).Start(t)
	run := func() string {
		vm, out := testVM(t, runtime.Config{Server: url})
		err := vm.RunString(`
			local reqs = {}
			for i = 1, 16 do reqs[i] = {"hi " .. i, {max_tokens = 60}} end
			local _, s = stream_many(reqs, {concurrency = 16})
			local c = s.client
			assert(c, "no client in the summary")
			assert(c.cpu_ms > 0 and c.reader_cpu_ms >= 0 and c.reader_cpu_ms <= c.cpu_ms, "cpu " .. c.cpu_ms .. " reader " .. c.reader_cpu_ms)
			assert(c.busy > 0 and c.busy <= 1.01, "busy " .. c.busy)
			assert(c.reader_wait_ms ~= json_null and c.reader_wait_ms >= 0 and c.reader_wait_ms <= s.duration_ms,
				"reader waited " .. tostring(c.reader_wait_ms) .. " of " .. s.duration_ms)
			assert(c.reader_runs ~= json_null and c.reader_runs > 0, "reader runs " .. tostring(c.reader_runs))
			print(c.cores, c.reader_wait_ms)`, "c.lua")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	quiet := run()
	if !strings.HasPrefix(quiet, fmt.Sprintf("%d\t", goruntime.NumCPU())) {
		t.Errorf("printed %q, want the machine's %d cores first", quiet, goruntime.NumCPU())
	}
	for range 2 * goruntime.NumCPU() {
		spin := exec.Command("sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { spin.Process.Kill(); spin.Wait() })
	}
	busy := run()
	if _, wait, _ := strings.Cut(busy, "\t"); wait == "0" {
		t.Errorf("with %d processes spinning, the readers never waited for a CPU (%q; quiet: %q)", 2*goruntime.NumCPU(), busy, quiet)
	}
	t.Logf("cores and reader wait ms: quiet %q, contended %q", quiet, busy)
}
