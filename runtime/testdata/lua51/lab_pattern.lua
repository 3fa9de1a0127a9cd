-- scripts/lab.lua's shape: a counter local, a helper closure, pcall(dofile).
local results, status, bad = {}, {}, 0
local function run(name, file)
  local r = {name = name}
  local ok, res = pcall(dofile, file)
  r.status = ok and "ok" or "FAILED"
  r.detail = type(res) == "table" and ("status " .. tostring(res.status)) or tostring(res)
  if r.status ~= "ok" then bad = bad + 1 end
  status[name] = r.status
  results[#results + 1] = r
end
run("first", "steps/ok.lua")
run("second", "steps/fails.lua")
run("third", "steps/raises_table.lua")
run("fourth", "steps/ok.lua")
for _, r in ipairs(results) do print(string.format("%-7s %-7s %s", r.name, r.status, r.detail)) end
print(bad .. " of " .. #results .. " failed")
print(status.second, status.fourth)
