-- Two closures share one upvalue, across a caught error.
local function counter()
  local n = 0
  local function get() return n end
  local function inc() n = n + 1 end
  return get, inc
end
local get, inc = counter()
inc()
print(pcall(function() inc(); error("x") end))
inc()
print(get())
