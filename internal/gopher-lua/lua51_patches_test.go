package lua

import (
	"strings"
	"testing"
)

// TestLua51Patches pins each change PATCHES.md lists, with what Lua 5.1
// prints for the same code.
func TestLua51Patches(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"upvalue shared after pcall", `local n = 0; local function inc() n = n + 1 end; pcall(error, "x"); inc(); out(n)`, "1"},
		{"upvalue shared after xpcall", `local n = 0; local function inc() n = n + 1 end
			xpcall(function() inc(); error("x") end, function(e) return e end); inc(); out(n)`, "2"},
		{"closure from a failed call keeps its value", `local f
			pcall(function() local z = 10; f = function() z = z + 1; return z end; error("x") end)
			local function noise(a, b, c) return a + b + c end; noise(1, 2, 3); out(f(), f())`, "11 12"},
		{"closure from a call failed under xpcall keeps its value", `local f
			xpcall(function() local z = 10; f = function() z = z + 1; return z end; error("x") end, function(e) return e end)
			local function noise(a, b, c) return a + b + c end; noise(1, 2, 3); out(f(), f())`, "11 12"},
		{"closure from a dead coroutine keeps its value", `local g
			local co = coroutine.create(function() local w = 1; g = function() w = w + 1; return w end; error("e") end)
			coroutine.resume(co); coroutine.resume(coroutine.create(function(a, b) return a + b end), 5, 6); out(g(), g())`, "2 3"},
		{"yield inside pcall", `local co = coroutine.create(function() out(pcall(coroutine.yield, 1)); return "done" end)
			out(coroutine.resume(co))`, "false attempt to yield across metamethod/C-call boundary\ntrue done"},
		{"numbers as %.14g", `out(1e15, 2^53, 1/0, -1/0, 0.1, 1/3, 123456789012345)`,
			"1e+15 9.007199254741e+15 inf -inf 0.1 0.33333333333333 1.2345678901234e+14"},
		{"negative zero", `local z = 0; out(-z)`, "-0"},
		{"concat", `out(1e15 .. "|" .. 2.5)`, "1e+15|2.5"},
		{"tonumber", `out(tonumber("1e5"), tonumber(" 0x10 "), tonumber("017"), tonumber("1e"), "017" + 0)`, "100000 16 17 nil 17"},
		{"math.huge", `out(math.huge == 1/0, math.huge)`, "true inf"},
		{"format %q", `out(string.format("%q", "a\nb\0c\r"))`, "\"a\\\nb\\000c\\r\""},
		{"format %g %x %s", `out(string.format("%g|%x|%5s|%.2s|%f", 1/3, -1, "ab", "xyz", 1/0))`, "0.333333|ffffffffffffffff|   ab|xy|inf"},
		{"format errors", `out(pcall(string.format, "%d")); out(pcall(string.format, "%y", 1))`,
			"false bad argument #2 to (anonymous) (no value)\nfalse invalid option '%y' to 'format'"},
		{"error without a value", `out(pcall(error)); out(select("#", pcall(error)))`, "false nil\n2"},
		{"error with a number", `out(pcall(function() error(42) end)); out(pcall(function() error(42, 0) end))`, "false <string>:1: 42\nfalse 42"},
		{"position of a Go function called by a Go function", `out(pcall(error, "x")); out(pcall(setmetatable, setmetatable({}, {__metatable = 1}), {}))`,
			"false x\nfalse cannot change a protected metatable"},
		{"find with an empty pattern", `out(("abc"):find("", 10)); out(("abc"):find("", 2)); out(("abc"):find("c", 10, true))`, "4 3\n2 1\nnil"},
		{"multiple assignment", `local a, b = 1, 2; a, b = b, a; local x, y = 0, 0; x, y = x + 1, x + y
			local t, k = {}, 1; t[k], k = k, 5; local s = {}; local keep = s; s[1], s = "v", nil; out(a, b, x, y, t[1], k, keep[1], s)`, "2 1 1 0 1 5 v nil"},
		{"traversal clearing every field", `local t = {}; for i = 1, 40 do t["k" .. i] = i end
			local n, s = 0, 0; for k, v in pairs(t) do t[k] = nil; n = n + 1; s = s + v end; out(n, s, next(t))`, "40 820 nil"},
		{"a field cleared and set again is visited once", `local t = {a = 1, b = 2, c = 3}; t.b = nil; t.b = 5; t.d = nil
			local n, s = 0, 0; for _, v in pairs(t) do n = n + 1; s = s + v end; out(n, s)`, "3 9"},
		{"next through small and large tables", `local function count(t) local n, k = 0, nil
				repeat k = next(t, k); if k ~= nil then n = n + 1 end until k == nil; return n end
			local small, large, mixed = {x = 1, y = 2}, {}, {1, 2, x = 3, [2.5] = 4, [true] = 5}
			for i = 1, 50 do large[i + 0.5] = i end; out(count(small), count(large), count(mixed))`, "2 50 5"},
		{"fields assigned during a traversal", `local t = {}; for i = 1, 40 do t["k" .. i] = i end
			local s = 0; for k, v in pairs(t) do t[k] = v * 2 end; for _, v in pairs(t) do s = s + v end; out(s)`, "1640"},
		{"small table cleared during a traversal, mixed keys", `local t = {1, 2, a = 1, b = 2, c = 3, [2.5] = 4, [true] = 5}
			local n, s = 0, 0; for k, v in pairs(t) do t[k] = nil; n = n + 1; s = s + v end; out(n, s, next(t))`, "7 18 nil"},
		{"past 32 string keys, cleared ones among them", `local t = {}; for i = 1, 32 do t["k" .. i] = i end; for i = 1, 10 do t["k" .. i] = nil end; t.extra = 100
			local n, s = 0, 0; for _, v in pairs(t) do n = n + 1; s = s + v end; out(n, s, t.k5, t.k11, t.extra, rawget(t, "k32"))`, "23 573 nil 11 100 32"},
		{"next from each key of a small table", `local t = {x = 1, yy = 2, zzz = 3, [4] = 4}; local seen, k = {}, nil
			repeat k = next(t, k); if k ~= nil then seen[#seen + 1] = tostring(k) end until k == nil
			table.sort(seen); out(table.concat(seen, ","))`, "4,x,yy,zzz"},
		{"keys of one length, a string that spells a number, the empty key", `local t = {ab = 1, ba = 2, ["1"] = 3, [1] = 4, [""] = 5}; t.ab = nil; t.ab = 6
			out(t.ab, t.ba, t["1"], t[1], t[""], t.aa)`, "6 2 3 4 5 nil"},
		{"a constructor of 40 string keys; a table emptied and filled again", `local src = "return {" for i = 1, 40 do src = src .. "f" .. i .. " = " .. i .. ", " end
			local t = loadstring(src .. "}")(); local n = 0; for _ in pairs(t) do n = n + 1 end
			local u = {a = 1}; u.a = nil; out(n, t.f40, next(u)); u.b = 2; out(next(u))`, "40 40 nil\nb 2"},
		{"fields of a small table assigned during a traversal", `local t = {}; for i = 1, 20 do t["k" .. i] = i end; for k, v in pairs(t) do t[k] = v + 1 end
			local s = 0; for _, v in pairs(t) do s = s + v end; out(s)`, "230"},
	}
	for _, c := range cases {
		L := NewState()
		var got []string
		L.SetGlobal("out", L.NewFunction(func(L *LState) int {
			parts := make([]string, 0, L.GetTop())
			for i := 1; i <= L.GetTop(); i++ {
				parts = append(parts, L.ToStringMeta(L.Get(i)).String())
			}
			got = append(got, strings.Join(parts, " "))
			return 0
		}))
		if err := L.DoString(c.code); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if g := strings.Join(got, "\n"); g != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, g, c.want)
		}
		L.Close()
	}
}
