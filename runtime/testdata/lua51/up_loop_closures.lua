-- Each iteration of a numeric for has a fresh local.
local fs = {}
for i = 1, 5 do
  fs[#fs + 1] = function() return i end
end
local out = {}
for _, f in ipairs(fs) do out[#out + 1] = f() end
print(table.concat(out, " "))
-- locals inside a while body are fresh per iteration too
local gs, k = {}, 0
while k < 3 do
  k = k + 1
  local j = k * 10
  gs[k] = function() j = j + 1; return j end
end
print(gs[1](), gs[2](), gs[3](), gs[1]())
-- generic for
local hs = {}
for idx, v in ipairs({"a", "b", "c"}) do
  hs[idx] = function() return idx .. v end
end
print(hs[1](), hs[2](), hs[3]())
