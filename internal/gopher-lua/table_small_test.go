package lua

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// TestSmallListKeepsOrderAcrossSpill: a table's string keys are walked in
// the order they were first set, as upstream walks them, both while they
// sit in the small list and after the list moved to strdict (patch 12);
// a cleared key set again keeps its place.
func TestSmallListKeepsOrderAcrossSpill(t *testing.T) {
	for _, n := range []int{1, smallMax, smallMax + 1, 3 * smallMax} {
		tb := newLTable(0, 0)
		var want []string
		for i := range n {
			k := "key" + strconv.Itoa((i*7919)%1000)
			tb.RawSetString(k, LNumber(i))
			want = append(want, k)
		}
		tb.RawSetString(want[0], LNil)
		tb.RawSetString(want[0], LNumber(-1))
		if inList := tb.strdict == nil; inList != (n <= smallMax) {
			t.Errorf("%d keys: in the small list %v", n, inList)
		}
		var got []string
		for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
			got = append(got, string(k.(LString)))
			if tb.RawGet(k) != v {
				t.Errorf("%d keys: next gave %v = %v, the table holds %v", n, k, v, tb.RawGet(k))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d keys: walked %d", n, len(got))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d keys: key %d walked as %q, set as %q", n, i, got[i], want[i])
			}
		}
		if v := tb.RawGetString(want[0]); v != LNumber(-1) {
			t.Errorf("%d keys: the key set again holds %v", n, v)
		}
	}
}

// TestSmallListNeverHoldsAbsentKeys: clearing a key that was never set
// adds nothing, so a table filled and read with absent keys cleared stays
// in its list.
func TestSmallListNeverHoldsAbsentKeys(t *testing.T) {
	tb := newLTable(0, 2)
	for i := range 100 {
		tb.RawSetString("absent"+strconv.Itoa(i), LNil)
	}
	tb.RawSetString("a", LTrue)
	if len(tb.small) != 1 || tb.strdict != nil {
		t.Fatalf("list %d entries, strdict %v", len(tb.small), tb.strdict != nil)
	}
}

// BenchmarkTableHeap reports the heap a table of n string keys holds
// (heap-B/table), made with that size and without one, after two GCs.
// docs/BENCHMARKS.md has the figures before and after patch 12.
func BenchmarkTableHeap(b *testing.B) {
	names := make([]string, 32)
	for i := range names {
		names[i] = "field_" + strconv.Itoa(i)
	}
	for _, n := range []int{2, 8, 13, 17, 24} {
		for _, sized := range []bool{true, false} {
			hint := 0
			if sized {
				hint = n
			}
			b.Run(fmt.Sprintf("keys=%d/hint=%d", n, hint), func(b *testing.B) {
				const tables = 10000
				keep := make([]*LTable, tables)
				var before, after runtime.MemStats
				for b.Loop() {
					clear(keep)
					runtime.GC()
					runtime.GC()
					runtime.ReadMemStats(&before)
					for i := range keep {
						t := newLTable(0, hint)
						for _, k := range names[:n] {
							t.RawSetString(k, LNumber(1))
						}
						keep[i] = t
					}
					runtime.GC()
					runtime.GC()
					runtime.ReadMemStats(&after)
				}
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/tables, "heap-B/table")
				runtime.KeepAlive(keep)
			})
		}
	}
}

// BenchmarkTableLookup looks up a string key of a table of n keys
// "field_1".."field_n" (each of the last ones the same length): the last
// key set (the longest walk of a small list), and a key not there. Also
// what Lua's {a = 1, ...} of five fields costs to build.
func BenchmarkTableLookup(b *testing.B) {
	for _, n := range []int{4, 12, 20, 32} {
		tb := newLTable(0, n)
		for i := 1; i <= n; i++ {
			tb.RawSetString("field_"+strconv.Itoa(i), LNumber(i))
		}
		last, absent := "field_"+strconv.Itoa(n), "absent_key"
		b.Run(fmt.Sprintf("keys=%d/last", n), func(b *testing.B) {
			for b.Loop() {
				if tb.RawGetString(last) == LNil {
					b.Fatal("no value")
				}
			}
		})
		b.Run(fmt.Sprintf("keys=%d/absent", n), func(b *testing.B) {
			for b.Loop() {
				if tb.RawGetString(absent) != LNil {
					b.Fatal("a value")
				}
			}
		})
	}
	b.Run("build-5-fields", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := newLTable(0, 5)
			for _, k := range []string{"a", "b", "c", "d", "e"} {
				t.RawSetString(k, LTrue)
			}
		}
	})
}

// TestTableAgainstAMap drives tables with random sets, clears and
// traversals of string and other keys, across the move from the small
// list to strdict, and holds every read and every traversal to a Go map
// of the same operations: each key with a value is walked exactly once,
// also while a traversal clears the keys it has passed.
func TestTableAgainstAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keyOf := func(i int) LValue {
		switch i % 4 {
		case 0, 1:
			return LString("k" + strconv.Itoa(i))
		case 2:
			return LNumber(float64(i) + 0.5) // a number key outside the array part
		}
		return LNumber(i % 8) // array part (and 0, a hash key)
	}
	for round := range 300 {
		tb := newLTable(0, rng.IntN(40))
		model := map[LValue]LValue{}
		space := 2 + rng.IntN(3*smallMax)
		for op := range 400 {
			k := keyOf(rng.IntN(space))
			switch r := rng.IntN(10); {
			case r < 6:
				v := LNumber(op)
				tb.RawSet(k, v)
				model[k] = v
			case r < 8:
				tb.RawSet(k, LNil)
				delete(model, k)
			default:
				// a traversal, clearing some of the keys it passes
				seen := map[LValue]bool{}
				for key, v := tb.Next(LNil); key != LNil; key, v = tb.Next(key) {
					if seen[key] {
						t.Fatalf("round %d op %d: %v walked twice", round, op, key)
					}
					seen[key] = true
					if model[key] != v {
						t.Fatalf("round %d op %d: next gave %v = %v, want %v", round, op, key, v, model[key])
					}
					if rng.IntN(4) == 0 {
						tb.RawSet(key, LNil)
						delete(model, key)
					}
				}
				for key := range model {
					if !seen[key] {
						t.Fatalf("round %d op %d: %v (= %v) never walked", round, op, key, model[key])
					}
				}
			}
			if got, want := tb.RawGet(k), model[k]; (want == nil && got != LNil) || (want != nil && got != want) {
				t.Fatalf("round %d op %d: %v holds %v, want %v", round, op, k, got, want)
			}
		}
	}
}
