-- A comparator that raises: the error reaches the pcall around sort.
local t = {3, 1, 2}
local calls = 0
local ok, e = pcall(table.sort, t, function(a, b)
  calls = calls + 1
  error("comparator failed", 0)
end)
print(ok, e, calls)
print(#t)
local ok2, e2 = pcall(table.sort, {3, 1, 2}, function(a, b) error({why = "table error"}) end)
print(ok2, type(e2), e2.why)
local ok3 = pcall(table.sort, {3, "x", 1})
print(ok3)
local counted = 0
local function count() counted = counted + 1 end
pcall(table.sort, {2, 1}, function(a, b) count(); error("x") end)
count()
print(counted)
