-- table.sort with and without comparators.
local t = {5, 2, 8, 1, 9, 3}
table.sort(t)
print(table.concat(t, " "))
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, " "))
local words = {"pear", "fig", "banana", "kiwi"}
table.sort(words, function(a, b) return #a < #b or (#a == #b and a < b) end)
print(table.concat(words, " "))
local recs = {{n = "b", v = 2}, {n = "a", v = 2}, {n = "c", v = 1}}
table.sort(recs, function(x, y) if x.v ~= y.v then return x.v < y.v end return x.n < y.n end)
for _, r in ipairs(recs) do io.write(r.n, r.v, " ") end
print()
local one = {1}
table.sort(one)
print(one[1])
