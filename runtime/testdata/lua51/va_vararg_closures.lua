-- Closures that capture arguments of a vararg function.
local function make(...)
  local args = {...}
  local n = select("#", ...)
  return function(i) return args[i], n end
end
local g = make("x", "y", nil)
print(g(1))
print(g(2))
print(g(3))
local function curry(f, x) return function(...) return f(x, ...) end end
local add3 = curry(function(a, b, c) return a + b + c end, 1)
print(add3(2, 3))
