-- A closure made inside a call that then fails keeps its own upvalue.
local saved
local ok = pcall(function()
  local z = 10
  saved = function() z = z + 1; return z end
  error("after making the closure")
end)
print(ok)
-- calls that reuse the registers of the failed call
local function noise(a, b, c, d) return a + b + c + d end
print(noise(1, 2, 3, 4))
print(saved(), saved())
local saved2
print(xpcall(function()
  local w = 100
  saved2 = function() w = w + 1; return w end
  error("with a handler")
end, function(e) return "h" end))
print(noise(5, 6, 7, 8))
print(saved2(), saved2())
