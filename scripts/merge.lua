-- The merge on the console: `ttftlab merge` has written OUT/load.json
-- from the shards of one run and runs this to print it as load.lua
-- prints a run: the table of levels with their intervals and failures,
-- under each level its shards and their start spread,
-- then what the merge noted (PARAMS.notes) and the capacity.
local text = dofile("loadtext.lua")
local doc = read_json("load.json")
local set = doc.settings

local levels = {}
for i, l in ipairs(set.levels) do levels[i] = string.format("%g", l) end
print(string.format("ttftlab merge: run %s, %d shards, server %s, %s levels %s", set.run_id, set.shards, set.server, set.mode,
  table.concat(levels, ",")))
local slos = {}
for i, s in ipairs(set.slo) do slos[i] = s.text end
print("SLO: " .. table.concat(slos, ", "))

print(text.header(set.mode))
for _, row in ipairs(doc.levels) do
  for _, line in ipairs(text.level_lines(string.format("%g", row.level), row)) do print(line) end
  if type(row.over_saturated) == "table" then
    print(string.format("  over-saturated: %s kept rising in a shard (%s, over that shard's requests), which then started "
      .. "no new call: the level does not hold", row.over_saturated.metric, text.thirds_text(row.over_saturated)))
  end
  local parts = {}
  for i, sh in ipairs(row.shards or {}) do
    local on = (type(sh.host) == "string" and sh.host ~= "") and (" on " .. sh.host) or ""
    parts[i] = string.format("shard %d%s: %d requests%s", sh.shard, on, sh.requests,
      sh.failed > 0 and string.format(" (%d failed)", sh.failed) or "")
  end
  local spread = type(row.start_spread_ms) == "number" and string.format("start spread %s ms", text.ms(row.start_spread_ms))
    or "start spread unknown (a shard has no start on record)"
  print(string.format("  %s; %s", table.concat(parts, ", "), spread))
end
for _, line in ipairs(text.legend("over every shard's requests")) do print(line) end
for _, n in ipairs(PARAMS.notes or {}) do print("note: " .. n) end

local function row_of(level)
  for _, r in ipairs(doc.levels) do
    if r.level == level then return r end
  end
end
local capacity, above
if type(doc.capacity) == "table" then
  capacity = row_of(doc.capacity.level)
  if type(doc.capacity.next) == "table" then above = row_of(doc.capacity.next.level) end
end
if #doc.levels == 0 then
  print("capacity: none: no level was merged")
else
  print(text.capacity_line(set.mode, doc.levels, capacity, above))
end
print(string.format("artifacts in %s: load.json, requests.jsonl, requests.csv, server.jsonl; ttftlab report %s draws it", OUT, OUT))
