-- A yield inside a metamethod cannot cross the boundary either.
local t = setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end})
local co = coroutine.create(function()
  local ok, e = pcall(function() return t.key end)
  print(ok, e)
  return "after"
end)
print(coroutine.resume(co))
print(coroutine.status(co))
