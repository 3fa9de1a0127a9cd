-- Closure factories.
local function counter(start, step)
  local n = start
  return function() local v = n; n = n + step; return v end
end
local c1, c2 = counter(0, 1), counter(100, -10)
print(c1(), c1(), c2(), c1(), c2())
local function memo(f)
  local cache, calls = {}, 0
  return function(x)
    if cache[x] == nil then calls = calls + 1; cache[x] = f(x) end
    return cache[x], calls
  end
end
local sq = memo(function(x) return x * x end)
print(sq(4)); print(sq(4)); print(sq(5))
