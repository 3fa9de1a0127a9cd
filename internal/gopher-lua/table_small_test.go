package lua

import (
	"fmt"
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
