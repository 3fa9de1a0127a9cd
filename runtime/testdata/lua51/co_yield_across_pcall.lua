-- A yield under pcall cannot cross the C boundary in Lua 5.1.
local co = coroutine.create(function()
  local ok, e = pcall(coroutine.yield, 1)
  print("inside", ok, e)
  local ok2, e2 = pcall(function() coroutine.yield(2) end)
  print("inside", ok2, e2)
  coroutine.yield(3)
  return "finished"
end)
print(coroutine.resume(co))
print(coroutine.resume(co))
print((coroutine.resume(co)))
print(coroutine.status(co))
