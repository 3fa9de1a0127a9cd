-- Locals shared between a coroutine and the main chunk.
local log = {}
local n = 0
local co = coroutine.wrap(function()
  for i = 1, 3 do
    n = n + i
    log[#log + 1] = "co" .. i
    coroutine.yield(n)
  end
  return "done"
end)
print(co())
n = n + 100
print(co())
print(pcall(error, "between"))
print(co())
print(co())
print(n, table.concat(log, ","))
