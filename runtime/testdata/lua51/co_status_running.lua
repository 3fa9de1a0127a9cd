-- status as seen from inside and outside.
local co
co = coroutine.create(function()
  print("inside", coroutine.status(co))
  print(coroutine.running() == co)
  coroutine.yield()
end)
print(coroutine.status(co))
coroutine.resume(co)
print(coroutine.status(co))
coroutine.resume(co)
print(coroutine.status(co))
