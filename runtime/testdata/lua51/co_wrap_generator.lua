-- A generator with coroutine.wrap in a for loop.
local function range(n, step)
  return coroutine.wrap(function()
    for i = 1, n, step do coroutine.yield(i) end
  end)
end
local out = {}
for v in range(10, 3) do out[#out + 1] = v end
print(table.concat(out, " "))
local function chars(s)
  return coroutine.wrap(function()
    for i = 1, #s do coroutine.yield(i, s:sub(i, i)) end
  end)
end
for i, c in chars("lua") do print(i, c) end
