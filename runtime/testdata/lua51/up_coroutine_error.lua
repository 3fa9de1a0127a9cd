-- A coroutine that dies of an error: closures made in it keep their values.
local g
local co = coroutine.create(function(start)
  local w = start
  g = function() w = w + 1; return w end
  coroutine.yield(w)
  error("dies")
end)
print(coroutine.resume(co, 5))
print(g(), g())
local ok, err = coroutine.resume(co)
print(ok, err)
print(coroutine.status(co))
-- make a new coroutine reuse the old slots
local co2 = coroutine.create(function(a, b, c) return a + b + c end)
print(coroutine.resume(co2, 1, 2, 3))
print(g(), g())
