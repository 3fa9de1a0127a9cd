-- The kind of arithmetic stats code does: mean, percentile, rounding.
local xs = {12.5, 7.25, 30, 18.75, 9.5, 22}
table.sort(xs)
local sum = 0
for _, x in ipairs(xs) do sum = sum + x end
local mean = sum / #xs
print(sum, mean)
local function pct(p)
  local rank = p / 100 * (#xs - 1) + 1
  local lo = math.floor(rank)
  local frac = rank - lo
  if lo >= #xs then return xs[#xs] end
  return xs[lo] + frac * (xs[lo + 1] - xs[lo])
end
print(pct(50), pct(95), pct(99), pct(100))
print(math.floor(mean * 1000 + 0.5) / 1000)
print(string.format("%.1f ms", pct(95)))
