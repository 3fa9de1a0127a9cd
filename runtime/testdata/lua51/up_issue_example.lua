-- The issue's example: a helper closure shares a local with the script.
local n = 0
local function inc() n = n + 1 end
pcall(error, "x")
inc()
print(n)
pcall(error, {})
inc()
print(n)
