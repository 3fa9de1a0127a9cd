-- The load: how many calls at once this server, model and prompt layout
-- carry before the first sentence comes too late.
--   ttftlab load [flags]   (PARAMS holds the flags: see docs/load.md)
-- At each level (calls at once, or calls per second) it runs the calls,
-- records every request as it ends (requests.jsonl, requests.csv) and the
-- server's own view (server.jsonl), then checks the SLOs on the level's
-- percentiles. The capacity is the highest level whose SLOs hold.
local calls = require("calls")
local prompt = require("prompt")
local stats = require("stats")
local runinfo = dofile("runinfo.lua")

local P = PARAMS
local docs = P.docs > 0 and kb_docs() or {}
if #docs < P.docs then
  error(string.format("load: --docs %d, but the KB has %d documents", P.docs, #docs))
end
if PREFLIGHT then return end

local SYSTEM = "You are a clinic phone assistant. Answer in one or two short sentences."
local system = prompt.build(SYSTEM, docs, P.docs)
local QUESTION = "Do you open on Saturday?"

-- A fresh run: rows of an earlier run must not mix with this one's.
for _, f in ipairs({ "requests.jsonl", "requests.csv", "server.jsonl", "load.json" }) do os.remove(OUT .. "/" .. f) end

local props_table = props()
local settings = {
  server = SERVER, mode = P.mode, levels = P.levels, requests = P.requests, duration_ms = P.duration_ms,
  turns = P.turns, think_ms = P.think_ms, docs = P.docs, max_tokens = P.max_tokens, arrival = P.arrival,
  seed = P.seed, warmup = P.warmup, slo = P.slo,
}
local result = {
  settings = settings, model = runinfo.model_of(props_table), server = runinfo.server_of(props_table),
  levels = json_array(), capacity = json_null,
}

-- value is a request's measure for an SLO; a request without it (it
-- failed, or no sentence was complete) counts as infinitely late.
local function value(r, metric)
  local v = (metric == "ttft_ms") and r.info.ttft_ms or r[metric]
  if r.error or v == nil then return math.huge end
  return v
end

-- meets says whether one request meets every SLO limit.
local function meets(r)
  for _, s in ipairs(P.slo) do
    if value(r, s.metric) > s.limit_ms then return false end
  end
  return true
end

-- level_slo checks each SLO on the level's percentile, over every
-- request that is not warm-up (failed ones included, as infinitely late).
local function level_slo(turns)
  local out, all = json_array(), true
  for i, s in ipairs(P.slo) do
    local xs = {}
    for _, r in ipairs(turns) do
      if not r.warmup then xs[#xs + 1] = value(r, s.metric) end
    end
    local v = #xs > 0 and stats.percentile(xs, s.percentile) or math.huge
    if v ~= v then v = math.huge end -- between two failed requests
    local met = v <= s.limit_ms
    all = all and met
    out[i] = { metric = s.metric, percentile = s.percentile, limit_ms = s.limit_ms,
      value_ms = v < math.huge and v or json_null, met = met }
  end
  return out, all
end

local function fmt3(d)
  if d == nil or d.n == 0 then return "        -" end
  return string.format("%5.0f/%5.0f/%5.0f", d.p50, d.p95, d.p99)
end

print(string.format("ttftlab load: server %s, %s levels %s, %d calls of %d turns each, %d docs, max_tokens %d",
  SERVER, P.mode, table.concat(P.levels, ","), P.requests, P.turns, P.docs, P.max_tokens))
local slo_text = {}
for i, s in ipairs(P.slo) do slo_text[i] = s.text end
print("SLO: " .. table.concat(slo_text, ", "))
print(string.format("\n%-8s %-17s %-17s %9s %7s %8s  %s", P.mode == "rate" and "rate/s" or "calls",
  "ttft p50/95/99", "1st sent p50/95/99", "tok/s", "errors", "goodput", "SLO"))

for _, level in ipairs(P.levels) do
  local opts = {
    calls = P.requests, turns = P.turns, think_ms = P.think_ms, seed = P.seed, arrival = P.arrival,
    system = SYSTEM, docs = P.docs, lines = P.turns == 1 and { QUESTION } or nil,
    opts = { max_tokens = P.max_tokens }, warmup = P.warmup, progress = true,
    duration_ms = P.duration_ms > 0 and P.duration_ms or nil,
    record = { jsonl = "requests.jsonl", csv = "requests.csv", tags = { level = level }, columns = { "call", "turn" } },
    watch = { file = "server.jsonl", tags = { level = level } },
  }
  if P.mode == "rate" then opts.rate = level else opts.concurrency = level end
  local turns, summary = calls.run(opts)
  local good, counted = 0, 0
  for _, r in ipairs(turns) do
    if not r.warmup then
      counted = counted + 1
      if not r.error and meets(r) then good = good + 1 end
    end
  end
  local slo, met = level_slo(turns)
  local errors = summary.requests - summary.ok
  local row = {
    level = level, summary = summary, slo = slo, slo_met = met and errors == 0,
    goodput = counted > 0 and good / counted or 0,
  }
  row[P.mode] = level
  result.levels[#result.levels + 1] = row
  write_json("load.json", result)
  local verdict = row.slo_met and "met" or (errors > 0 and "errors" or "missed")
  print(string.format("%-8s %-17s %-17s %9.1f %7d %7.0f%%  %s", string.format("%g", level), fmt3(summary.ttft_ms),
    fmt3(summary.first_sentence_ms), summary.tokens_per_s or 0, errors, row.goodput * 100, verdict))
end

-- The capacity: the highest level whose SLOs hold, with the level above it.
local capacity, above
for i, row in ipairs(result.levels) do
  if row.slo_met then capacity, above = row, result.levels[i + 1] end
end
if capacity then
  result.capacity = { level = capacity.level, next = above and { level = above.level, slo = above.slo } or json_null }
end
write_json("load.json", result)

local function unit(level)
  if P.mode == "rate" then return " calls/s" end
  return level == 1 and " call at once" or " calls at once"
end
print("")
if capacity then
  local s = capacity.slo[1]
  local line = string.format("capacity: %g%s (%s p%g %.0f ms <= %g ms)", capacity.level, unit(capacity.level), s.metric, s.percentile,
    s.value_ms, s.limit_ms)
  if above then
    local a = above.slo[1]
    line = line .. string.format("; at %g: %s", above.level, a.value_ms ~= json_null and string.format("%.0f ms", a.value_ms) or "no value")
  else
    line = line .. "; every level held: try higher ones"
  end
  print(line)
else
  print(string.format("capacity: none: already %g%s misses the SLO", P.levels[1], unit(P.levels[1])))
end
print(string.format("artifacts in %s: load.json, requests.jsonl, requests.csv, server.jsonl", OUT))
