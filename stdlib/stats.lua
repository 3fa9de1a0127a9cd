-- stats: summary statistics over arrays of numbers, a library for user
-- scripts. ttftlab's own figures are computed in Go (internal/interval's
-- PercentileOf and Late) by the same percentile rule.
--
--   local stats = require("stats")
--   stats.median(xs)        -> number
--   stats.percentile(xs, p) -> number   (p in 0..100)
--   stats.mean(xs)          -> number
--   stats.min(xs)           -> number
--   stats.max(xs)           -> number
--   stats.stdev(xs)         -> number   (sample standard deviation, n - 1)
--   stats.summary(xs)       -> {n=, min=, p50=, p90=, p99=, max=, mean=}
--
-- xs is an array xs[1..#xs] of numbers. No function changes xs. Every
-- function raises an error naming itself and the offending index when xs is
-- empty, is not a table, or holds something other than a number (NaN counts
-- as not a number: it has no place in an order).
--
-- Percentiles interpolate linearly between the closest ranks (the method of
-- Excel's PERCENTILE.INC and NumPy's default): with the values sorted as
-- s[1..n], the rank is h = 1 + (n - 1) * p / 100 and the result is
-- s[floor(h)] + (h - floor(h)) * (s[floor(h) + 1] - s[floor(h)]).
-- So p = 0 gives the minimum, p = 100 the maximum and p = 50 the median.

local M = {}

-- check raises unless xs is a non-empty array of numbers, pointing the
-- error at the script line that called the public function.
local function check(fname, xs)
  if type(xs) ~= "table" then
    error("stats." .. fname .. ": expected an array of numbers, got " .. type(xs), 3)
  end
  local n = #xs
  if n == 0 then
    error("stats." .. fname .. ": the array is empty; need at least one number", 3)
  end
  for i = 1, n do
    local x = xs[i]
    if type(x) ~= "number" then
      error(string.format("stats.%s: element [%d] is a %s (%s), want a number",
        fname, i, type(x), tostring(x)), 3)
    end
    if x ~= x then
      error(string.format("stats.%s: element [%d] is NaN, want a number", fname, i), 3)
    end
  end
  return n
end

-- sorted returns a sorted copy so the caller's array keeps its order.
local function sorted(xs, n)
  local s = {}
  for i = 1, n do
    s[i] = xs[i]
  end
  table.sort(s)
  return s
end

-- rank_value interpolates between the closest ranks of a sorted array.
local function rank_value(s, n, p)
  local h = 1 + (n - 1) * p / 100
  local lo = math.floor(h)
  if lo >= n then
    return s[n]
  end
  return s[lo] + (h - lo) * (s[lo + 1] - s[lo])
end

local function check_p(fname, p)
  if type(p) ~= "number" or p ~= p or p < 0 or p > 100 then
    error(string.format("stats.%s: p must be a number from 0 to 100, got %s",
      fname, tostring(p)), 3)
  end
end

function M.median(xs)
  local n = check("median", xs)
  local s = sorted(xs, n)
  local mid = math.floor((n + 1) / 2)
  if n % 2 == 1 then
    return s[mid]
  end
  return (s[mid] + s[mid + 1]) / 2
end

function M.percentile(xs, p)
  local n = check("percentile", xs)
  check_p("percentile", p)
  return rank_value(sorted(xs, n), n, p)
end

function M.mean(xs)
  local n = check("mean", xs)
  local sum = 0
  for i = 1, n do
    sum = sum + xs[i]
  end
  return sum / n
end

function M.min(xs)
  local n = check("min", xs)
  local m = xs[1]
  for i = 2, n do
    if xs[i] < m then
      m = xs[i]
    end
  end
  return m
end

function M.max(xs)
  local n = check("max", xs)
  local m = xs[1]
  for i = 2, n do
    if xs[i] > m then
      m = xs[i]
    end
  end
  return m
end

-- stdev is the sample standard deviation; one value has none, so that is an
-- error rather than a silent 0.
function M.stdev(xs)
  local n = check("stdev", xs)
  if n < 2 then
    error("stats.stdev: need at least 2 numbers for a sample standard deviation, got 1", 2)
  end
  local sum = 0
  for i = 1, n do
    sum = sum + xs[i]
  end
  local mean = sum / n
  local sq = 0
  for i = 1, n do
    local d = xs[i] - mean
    sq = sq + d * d
  end
  return math.sqrt(sq / (n - 1))
end

function M.summary(xs)
  local n = check("summary", xs)
  local s = sorted(xs, n)
  local sum = 0
  for i = 1, n do
    sum = sum + s[i]
  end
  return {
    n = n,
    min = s[1],
    p50 = rank_value(s, n, 50),
    p90 = rank_value(s, n, 90),
    p99 = rank_value(s, n, 99),
    max = s[n],
    mean = sum / n,
  }
end

return M
