-- A yield in the main chunk fails.
print(pcall(coroutine.yield, 1))
print(coroutine.running() == nil)
print(type(coroutine.create(function() end)))
