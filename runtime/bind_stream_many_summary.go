package runtime

import (
	"math"
	"sort"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
)

// summary is stream_many's second result, over the results that are not
// warm-up: counts (requests, ok, errors by kind, cut, warmup), duration_ms,
// requests_per_s and tokens_per_s, and {n, p50, p90, p95, p99, mean, max}
// of ttft_ms, first_sentence_ms, total_ms, gap_ms (between chunks),
// queue_ms and stall_ms.
func (m *many) summary() *lua.LTable {
	L := m.L
	var ttft, first, total, gaps, queue, stall []float64
	kinds := map[string]int{}
	ok, cut, warm, tokens := 0, 0, 0, 0.0
	for _, f := range m.done {
		if f.warmup {
			warm++
			continue
		}
		if f.ok {
			ok++
		} else {
			kinds[f.kind]++
		}
		if f.cut {
			cut++
		}
		ttft = append(ttft, f.ttftMs)
		first = append(first, f.firstSentenceMs)
		total = append(total, f.totalMs)
		queue = append(queue, f.queueMs)
		stall = append(stall, f.stallMs)
		gaps = append(gaps, f.gapsMs...)
		if !math.IsNaN(f.predictedN) {
			tokens += f.predictedN
		} else {
			tokens += float64(f.chunks)
		}
	}
	t := L.CreateTable(0, 16)
	t.RawSetString("requests", lua.LNumber(len(m.done)-warm))
	t.RawSetString("warmup", lua.LNumber(warm))
	t.RawSetString("ok", lua.LNumber(ok))
	t.RawSetString("cut", lua.LNumber(cut))
	t.RawSetString("errors", countsTable(m.vm, L, kinds))
	secs := m.elapsed.Seconds()
	t.RawSetString("duration_ms", lua.LNumber(msOf(m.elapsed)))
	if secs > 0 {
		t.RawSetString("requests_per_s", lua.LNumber(float64(ok)/secs))
		t.RawSetString("tokens_per_s", lua.LNumber(tokens/secs))
	}
	for _, d := range []struct {
		name string
		xs   []float64
	}{{"ttft_ms", ttft}, {"first_sentence_ms", first}, {"total_ms", total}, {"gap_ms", gaps},
		{"queue_ms", queue}, {"stall_ms", stall}} {
		t.RawSetString(d.name, distTable(L, load.Summarize(d.xs)))
	}
	return t
}

// countsTable is {kind = n} (an object, also when empty).
func countsTable(vm *VM, L *lua.LState, counts map[string]int) *lua.LTable {
	t := L.CreateTable(0, len(counts))
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.RawSetString(k, lua.LNumber(counts[k]))
	}
	t.Metatable = vm.json.object
	return t
}

// distTable is {n, p50, p90, p95, p99, mean, max}; only n when empty.
func distTable(L *lua.LState, d load.Dist) *lua.LTable {
	t := L.CreateTable(0, 7)
	t.RawSetString("n", lua.LNumber(d.N))
	if d.N == 0 {
		return t
	}
	for _, kv := range []struct {
		k string
		v float64
	}{{"p50", d.P50}, {"p90", d.P90}, {"p95", d.P95}, {"p99", d.P99}, {"mean", d.Mean}, {"max", d.Max}} {
		t.RawSetString(kv.k, lua.LNumber(kv.v))
	}
	return t
}
