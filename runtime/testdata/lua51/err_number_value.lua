-- A number raised at level 1 gets a position, as a string would.
local ok, e = pcall(function() error(42) end)
print(ok, e, type(e))
ok, e = pcall(function() error(42, 0) end)
print(ok, e, type(e))
ok, e = pcall(function() error(1.5, 2) end)
print(ok, e, type(e))
