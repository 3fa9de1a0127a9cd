-- The load: how many calls at once this server, model and prompt layout
-- carry before the first sentence comes too late.
--   ttftlab load [flags]   (PARAMS holds the flags: see docs/load.md)
-- At each level (calls at once, or calls per second) it runs the calls,
-- records every request as it ends (requests.jsonl, requests.csv) and the
-- server's own view (server.jsonl), then checks the SLOs on the level's
-- percentiles. The capacity is the highest level whose SLOs hold. With
-- --search (P.search_max > 0) the levels are not given: search_next
-- chooses each from the verdicts so far (doubling, then bisection).
local calls = require("calls")
local prompt = require("prompt")
local runinfo = dofile("runinfo.lua")
local text = dofile("loadtext.lua")
local ms = text.ms

local P = PARAMS
-- search_max is 0 without --search (and absent from an older caller's PARAMS).
P.search_max = P.search_max or 0
P.search_budget = P.search_budget or P.requests
P.search_start = P.search_start or 1
local docs = P.docs > 0 and kb_docs() or {}
if #docs < P.docs then
  error(string.format("load: --docs %d, but the KB has %d documents", P.docs, #docs))
end
if PREFLIGHT then return end

local SYSTEM = "You are a clinic phone assistant. Answer in one or two short sentences."
local system = prompt.build(SYSTEM, docs, P.docs)

-- A fresh run: rows of an earlier run must not mix with this one's.
for _, f in ipairs({ "requests.jsonl", "requests.csv", "server.jsonl", "load.json" }) do os.remove(OUT .. "/" .. f) end

-- /props is llama.cpp's; other kinds leave the model's settings unknown.
local caps = server_caps()
local props_table = caps.kind == "llama.cpp" and props() or {}
local settings = {
  -- --requests is the calls per level; each makes --turns requests.
  server = SERVER, server_kind = caps.kind, mode = P.mode,
  levels = P.search_max > 0 and json_array() or P.levels, search_max = P.search_max > 0 and P.search_max or nil,
  search_start = (P.search_max > 0 and P.mode == "rate") and P.search_start or nil, search_budget = P.search_max > 0 and P.search_budget or nil, calls = P.requests,
  requests = P.requests * P.turns, duration_ms = P.duration_ms,
  turns = P.turns, think_ms = P.think_ms, docs = P.docs, max_tokens = P.max_tokens, arrival = P.arrival,
  seed = P.seed, warmup = P.warmup, warmup_ms = (P.warmup_ms or 0) > 0 and P.warmup_ms or nil, slo = P.slo, api = API or "chat",
  kb = P.docs > 0 and KB_DIR or nil, tts = nil,
  -- A shard of a run split over machines (--shard): its part, the run,
  -- and when its levels are due on the wall clock.
  run_id = P.run_id, shard = P.shard, start_at_unix_ms = P.start_at_unix_ms, level_gap_ms = P.shard and P.level_gap_ms or nil,
}
-- With --tts every answer is spoken, sentence by sentence, as it streams.
local speech
if P.tts then
  speech = tts_info()
  if speech == nil then error("load: --tts is set but the run has no speech server") end
  settings.tts = { url = speech.url, source = speech.source, model = speech.model, format = speech.format,
    engine = speech.engine, voice = speech.voice, api_key = speech.api_key }
end
local result = {
  settings = settings, model = runinfo.model_of(props_table), server = runinfo.server_of(props_table),
  levels = json_array(), capacity = json_null,
}
-- Written before the first level too: a run stopped in it still has its
-- settings, model and server, and ttftlab adds the level it stopped in.
write_json("load.json", result)

-- value is a request's measure for an SLO, or nil and why it has none:
-- "failed" (it failed) or "missing" (it ended without reaching the
-- figure, e.g. no complete sentence). Either counts as infinitely late.
local function value(r, metric)
  if r.error then return nil, "failed" end
  local v = (metric == "ttft_ms") and r.info.ttft_ms or r[metric]
  if type(v) ~= "number" then return nil, "missing" end
  return v
end

local levels_text = table.concat(P.levels, ",")
if P.search_max > 0 then
  levels_text = P.mode == "rate" and string.format("searched from %g up to %d calls/s", P.search_start, P.search_max)
    or string.format("searched in 1..%d", P.search_max)
end
print(string.format("ttftlab load: server %s, %s levels %s, per level %d calls of %d turn%s each (%d requests), %d docs, max_tokens %d",
  SERVER, P.mode, levels_text, P.requests, P.turns, P.turns == 1 and "" or "s", P.requests * P.turns,
  P.docs, P.max_tokens))
local slo_text = {}
for i, s in ipairs(P.slo) do slo_text[i] = s.text end
print("SLO: " .. table.concat(slo_text, ", "))
-- A shard's record tags: which shard, machine and run made each row.
local shard_tags = P.shard and { shard = P.shard.index, host = P.shard.host, run_id = P.run_id } or {}

-- due_ms is when a shard's level (the k-th, from 0) is due on the wall
-- clock: its levels are fixed there, so shards that never talk to each
-- other run each level together.
local function due_ms(k) return P.start_at_unix_ms + k * (P.duration_ms + P.level_gap_ms) end

local function utc(ms) return os.date("!%Y-%m-%d %H:%M:%S", math.floor(ms / 1000)) .. string.format(".%03d UTC", math.floor(ms % 1000)) end

if P.shard then
  print(string.format("shard %d of %d of run %s on %s: calls %d, %d, ... of each level's %d; %d level(s), the first due at %s, "
    .. "each %g s then a %g s gap", P.shard.index, P.shard.count, P.run_id, P.shard.host, P.shard.index + 1,
    P.shard.index + 1 + P.shard.count, P.requests, #P.levels, utc(due_ms(0)), P.duration_ms / 1000, P.level_gap_ms / 1000))
end

print(text.header(P.mode))

-- late_from_start[k] is true when a shard's level k started late because
-- the shard was ready only after --start-at: the first level so, and each
-- later one that started late while the level before it did too (the
-- levels run back to back until they catch up with their schedule).
local late_from_start = {}

-- run_level runs one level (or, with round > 1, another round of a
-- level a search confirms: its row stays the first round's), records and
-- prints it, and returns its row and its requests. k is the level's
-- place (from 0) among a shard's levels.
local function run_level(level, n_calls, round, k)
  local tags = { level = level }
  for name, v in pairs(shard_tags) do tags[name] = v end
  local opts = {
    calls = n_calls or P.requests, turns = P.turns, think_ms = P.think_ms, seed = P.seed, arrival = P.arrival,
    system = SYSTEM, docs = P.docs,
    opts = { max_tokens = P.max_tokens }, warmup = P.warmup, progress = true,
    warmup_ms = (P.warmup_ms or 0) > 0 and P.warmup_ms or nil,
    duration_ms = P.duration_ms > 0 and P.duration_ms or nil,
    record = { jsonl = "requests.jsonl", csv = "requests.csv", tags = tags, columns = { "call", "turn" } },
    tts = speech ~= nil or nil,
    -- Only one shard samples the server, so its series is not there N times.
    watch = (P.shard == nil or P.shard.index == 0) and { file = "server.jsonl", tags = { level = level } } or nil,
  }
  local due
  if P.shard then
    due = due_ms(k)
    opts.shard = { index = P.shard.index, count = P.shard.count }
    opts.start_at_ms = due
    print(string.format("level %g due at %s", level, utc(due)))
  end
  if P.mode == "rate" then opts.rate = level else opts.concurrency = level end
  -- An open loop faster than the server: once the lateness of the
  -- requests that ended keeps rising (stream_many's check), no new call
  -- starts.
  if P.mode == "rate" then opts.over_saturation = P.slo[1] end
  local cpu0 = speech and tts_info().cpu_ms
  local turns, summary = calls.run(opts)
  if due and type(summary.started_unix_ms) == "number" and summary.started_unix_ms - due > 50 then
    -- The first level has no level before it: it is late because the
    -- shard was ready only after --start-at, and so is a later level
    -- whose predecessors are still catching up with that.
    late_from_start[k] = k == 0 or late_from_start[k - 1] == true
    local why = k == 0 and "the shard was ready only after --start-at"
      or late_from_start[k] and "the levels before it started late, the first because the shard was ready only after --start-at"
      or "the level before ran past --level-gap"
    print(string.format("  started %.0f ms after it was due: %s; the merge shows the spread",
      summary.started_unix_ms - due, why))
  end
  -- The level's record (load_level: made in Go from the level's rows);
  -- with the default speech engine, its CPU over the level.
  local row = load_level(settings, level, { due_unix_ms = due, tts_cpu_ms = cpu0 and tts_info().cpu_ms - cpu0 or nil })
  if (round or 1) == 1 then
    result.levels[#result.levels + 1] = row
    write_json("load.json", result)
  end
  local label = string.format("%g", level)
  if (round or 1) > 1 then label = label .. " #" .. round end
  for _, line in ipairs(text.level_lines(label, row, { engine = speech and speech.engine })) do print(line) end
  local over = row.over_saturated
  if over then
    local ended = 0
    for _, w in ipairs(over.thirds) do ended = ended + w.n end
    print(string.format("  over-saturated: %s kept rising (%s); no new call started after %d of %d had ended",
      over.metric, text.thirds_text(over), ended, n_calls or P.requests))
  end
  return row, turns
end

-- slo_values are a round's values of each SLO for search_next: the
-- values of its requests (warm-up left out) and how many were late
-- (failed, or never reached the figure).
local function slo_values(turns)
  local out = {}
  for i, s in ipairs(P.slo) do
    local xs, late = {}, 0
    for _, r in ipairs(turns) do
      if not r.warmup then
        local v = value(r, s.metric)
        if v ~= nil then xs[#xs + 1] = v else late = late + 1 end
      end
    end
    out[i] = { values = xs, late = late }
  end
  return out
end

-- pooled_record is a level's verdict over every round a search ran of it
-- (search_next's info.levels[i]) as load.json writes it.
local function pooled_record(v)
  local slo = json_array()
  for i, s in ipairs(P.slo) do
    local e = v.slo[i] or {}
    slo[i] = { metric = s.metric, percentile = s.percentile, limit_ms = s.limit_ms, value_ms = e.value_ms or json_null,
      ci_ms = { e.lo_ms or json_null, e.hi_ms or json_null }, n = e.n or 0, side = e.side or "straddles" }
  end
  return { rounds = v.rounds, calls = v.calls, failed = v.failed, met = v.met, decided = v.decided, slo = slo }
end

-- ci_text is an SLO's pooled interval, "[790, 838]" (text.bounds).
local function ci_text(e) return text.bounds(e.value_ms, e.ci_ms) end

local function all_failed(row) return row.summary.requests > 0 and row.summary.failed == row.summary.requests end

local capacity, above
if P.search_max > 0 then
  -- The search: each level's verdict decides the next (search_next),
  -- then the capacity and the level above it get more rounds until the
  -- interval of each SLO's percentile lies on one side of its limit, or
  -- the level has had --search-budget calls. A level where every request
  -- failed did not hold: the search goes on below it.
  local rounds, path, found, info = {}, json_array(), 0, nil
  local rows, ran = {}, {}
  local sopts = { slo = P.slo, calls = P.requests, budget = P.search_budget, rate = P.mode == "rate", start = P.search_start }
  while true do
    local level, cap, inf = search_next(rounds, P.search_max, sopts)
    info = inf
    -- Each step of the path gets its level's pooled verdict after it.
    if #path > 0 then
      local step = path[#path]
      for _, v in ipairs(info.levels) do
        if v.level == step.level then
          local p = pooled_record(v)
          step.met, step.value_ms, step.ci_ms, step.requests = v.met, p.slo[1].value_ms, p.slo[1].ci_ms, p.slo[1].n
          step.side = p.slo[1].side
          if rows[v.level] then rows[v.level].pooled = p end
        end
      end
    end
    if not level then found = cap break end
    ran[level] = (ran[level] or 0) + 1
    local row, turns = run_level(level, info.calls, ran[level])
    if ran[level] == 1 then
      rows[level] = row
      settings.levels[#settings.levels + 1] = level
    end
    rounds[#rounds + 1] = { level = level, calls = info.calls, failed = row.summary.failed, slo = slo_values(turns),
      over_saturated = row.over_saturated ~= nil }
    path[#path + 1] = { level = level, round = ran[level], calls = info.calls, over_saturated = row.over_saturated ~= nil or nil }
    write_json("load.json", result)
  end
  table.sort(result.levels, function(a, b) return a.level < b.level end)
  -- The capacity is the level found; above it the lowest level that did
  -- not hold.
  above = info.between[2] and rows[info.between[2]] or nil
  capacity = rows[found]
  result.capacity = { level = found, next = above and { level = above.level, slo = above.slo } or json_null, search = path,
    decided = info.decided }
  if not info.decided then result.capacity.between = info.between end
else
  for k, level in ipairs(P.levels) do
    local row = run_level(level, nil, nil, k - 1)
    if all_failed(row) then
      print(string.format("  every request at this level failed: the sweep stops here"))
      break
    end
  end
  -- The capacity: the highest level whose SLOs hold, with the level above it.
  for i, row in ipairs(result.levels) do
    if row.slo_met then capacity, above = row, result.levels[i + 1] end
  end
  if capacity then
    result.capacity = { level = capacity.level, next = above and { level = above.level, slo = above.slo } or json_null }
  end
end
write_json("load.json", result)

local function unit(level) return text.unit(P.mode, level) end
for _, line in ipairs(text.legend()) do print(line) end
-- pooled_text is a level's SLOs over every round a search ran of it:
-- "ttft_ms p50 6 ms [5, 7] (n=40)", the value "none" when the percentile
-- falls on a late request.
local function pooled_text(row)
  local parts = {}
  for i, e in ipairs(row.pooled.slo) do
    local v = type(e.value_ms) == "number" and (ms(e.value_ms) .. " ms") or "none"
    parts[i] = string.format("%s p%g %s %s (n=%d)", e.metric, e.percentile, v, ci_text(e), e.n)
  end
  if row.over_saturated then parts[#parts + 1] = "over-saturated" end
  if row.pooled.failed > 0 then parts[#parts + 1] = string.format("%d failed", row.pooled.failed) end
  return table.concat(parts, ", ")
end

if P.search_max > 0 and result.capacity.decided == false then
  local lo, hi = result.capacity.between[1], result.capacity.between[2]
  local parts = {}
  for _, l in ipairs({ lo, hi }) do
    local row
    for _, r in ipairs(result.levels) do if r.level == l then row = r end end
    if row and row.pooled then parts[#parts + 1] = string.format("at %g: %s", l, pooled_text(row)) end
  end
  local limits = {}
  for i, sl in ipairs(P.slo) do limits[i] = string.format("%g ms", sl.limit_ms) end
  if hi then
    print(string.format("capacity between %g and %g%s, undecided: %s (limit %s; an interval still holds it after --search-budget %d calls)",
      lo, hi, unit(hi), table.concat(parts, "; "), table.concat(limits, ", "), P.search_budget))
  else
    -- Every level held up to --search-max, whose own interval still
    -- holds the limit: nothing above it was tried.
    print(string.format("capacity undecided at %g%s, the largest level (--search-max): %s (limit %s; an interval still holds it after "
      .. "--search-budget %d calls); nothing above it was tried: give a higher --search-max", lo, unit(lo), table.concat(parts, "; "),
      table.concat(limits, ", "), P.search_budget))
  end
elseif capacity and P.search_max > 0 then
  local line = string.format("capacity: %g%s (%s)", capacity.level, unit(capacity.level), pooled_text(capacity))
  if above then
    line = line .. string.format("; at %g: %s", above.level, pooled_text(above))
  else
    line = line .. string.format("; every level held up to --search-max %g", P.search_max)
  end
  print(line)
elseif P.search_max > 0 and not capacity and above and above.pooled then
  print(string.format("capacity: none: already %g%s misses: %s", above.level, unit(above.level), pooled_text(above)))
else
  print(text.capacity_line(P.mode, result.levels, capacity, above, P.levels[1]))
end
if P.search_max > 0 then
  local steps = {}
  for i, s in ipairs(result.capacity.search) do
    steps[i] = string.format("%g %s", s.level, s.over_saturated and "over-saturated" or (s.met and "held" or "missed"))
    if s.round > 1 then steps[i] = steps[i] .. string.format(" (round %d, %d requests)", s.round, s.requests) end
  end
  print("search: " .. table.concat(steps, ", "))
end
print(string.format("artifacts in %s: load.json, requests.jsonl, requests.csv%s", OUT,
  (P.shard == nil or P.shard.index == 0) and ", server.jsonl" or ""))
if P.shard then
  local parent = OUT:match("^(.*)/[^/]+$") or "."
  print(string.format("shard %d of %d: these figures are over this shard's calls alone; once every shard has ended, "
    .. "`ttftlab merge %s --out %s/merged` gives the run's", P.shard.index, P.shard.count, parent, parent))
end
