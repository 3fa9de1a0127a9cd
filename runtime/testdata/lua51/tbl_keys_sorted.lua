-- Keys collected and sorted (pairs order is not part of the language).
local t = {b = 2, a = 1, c = 3, [1] = "one", [2] = "two"}
local keys = {}
for k in pairs(t) do keys[#keys + 1] = tostring(k) end
table.sort(keys)
print(table.concat(keys, " "))
local n = 0
for _ in pairs(t) do n = n + 1 end
print(n)
t.b = nil
n = 0
for _ in pairs(t) do n = n + 1 end
print(n, next({}))
