-- options: checking a function's option table, for the other modules.
--
--   local options = require("options")
--   options.check(fname, opts, known, level) -> opts
--   options.suggest(name, names)             -> the nearest name or nil
--
-- check(fname, opts, known, level): opts must be nil (an empty table is
-- returned) or a table whose keys are all in known (a list of names); an
-- unknown key is an error that lists known and, for a near miss, asks
-- "did you mean ...?". level is the error level of the caller's caller
-- (default 3: check is called by a public function, whose caller made the
-- mistake).
--
-- suggest(name, names): the name in names within two edits of name (the
-- nearest), or nil.

local M = {}

-- distance is the edit distance between a and b (insert, delete,
-- substitute and swap of neighbours all cost one).
local function distance(a, b)
  local prev2, prev, cur = {}, {}, {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    cur = { [0] = i }
    for j = 1, #b do
      local cost = (a:sub(i, i) == b:sub(j, j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      if i > 1 and j > 1 and a:sub(i, i) == b:sub(j - 1, j - 1) and a:sub(i - 1, i - 1) == b:sub(j, j) then
        cur[j] = math.min(cur[j], prev2[j - 2] + 1)
      end
    end
    prev2, prev = prev, cur
  end
  return prev[#b]
end

function M.suggest(name, names)
  local best, best_d = nil, 3
  for _, n in ipairs(names) do
    local d = distance(name, n)
    if d < best_d then best, best_d = n, d end
  end
  return best
end

function M.check(fname, opts, known, level)
  level = level or 3
  if opts == nil then
    return {}
  end
  if type(opts) ~= "table" then
    error(string.format("%s: opts must be a table, got %s", fname, type(opts)), level)
  end
  local set = {}
  for _, n in ipairs(known) do set[n] = true end
  for k in pairs(opts) do
    if type(k) ~= "string" then
      error(string.format("%s: opts must only have named fields, found the key %s", fname, tostring(k)), level)
    end
    if not set[k] then
      local near = M.suggest(k, known)
      local sorted = {}
      for _, n in ipairs(known) do sorted[#sorted + 1] = n end
      table.sort(sorted)
      error(string.format("%s: unknown option %q%s (known: %s)", fname, k,
        near and string.format("; did you mean %q?", near) or "", table.concat(sorted, ", ")), level)
    end
  end
  return opts
end

return M
