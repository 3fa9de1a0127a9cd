-- Coroutines resuming coroutines.
local inner = coroutine.create(function(a)
  local b = coroutine.yield(a * 2)
  return b + 1
end)
local outer = coroutine.create(function()
  local ok, v = coroutine.resume(inner, 5)
  local got = coroutine.yield(v)
  local ok2, w = coroutine.resume(inner, got)
  return w, coroutine.status(inner)
end)
print(coroutine.resume(outer))
print(coroutine.resume(outer, 20))
print(coroutine.status(outer))
