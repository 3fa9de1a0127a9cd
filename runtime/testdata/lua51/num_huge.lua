-- math.huge is infinity.
print(math.huge == 1/0, -math.huge == -1/0)
print(math.huge > 1e308, math.huge * 1000 == math.huge)
print(math.huge, math.huge * 2, -math.huge / 2)
local xs = {5, 3, math.huge, 1}
local m = math.huge
for _, x in ipairs(xs) do if x < m then m = x end end
print(m)
print(math.max(1, math.huge), math.min(-math.huge, 0))
print(1e308 * 10 == math.huge)
