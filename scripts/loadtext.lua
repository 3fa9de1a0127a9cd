-- loadtext: how a load's levels read on the console, for `ttftlab load`
-- (load.lua) and `ttftlab merge` (merge.lua) alike, from the level
-- records load.json holds.
--   local text = dofile("loadtext.lua")
--   print(text.header(mode))
--   for _, line in ipairs(text.level_lines(label, row)) do print(line) end
--   for _, line in ipairs(text.legend(scope)) do print(line) end
-- Each call of dofile gives a fresh module: text.marked says whether a
-- percentile its sample cannot support was marked "*" since.
local text = { marked = false }

-- ms is a time as the console writes it: one decimal under 10 ms.
function text.ms(x) return string.format(math.abs(x) < 10 and "%.1f" or "%.0f", x) end
local ms = text.ms

-- thin_tail: a pNN over fewer than 100/(100-NN) values (p95 of fewer
-- than 20, p99 of fewer than 100) has no value beyond it: it is the
-- largest value, or between the two largest, not the tail it names. Such
-- a percentile is marked "*" on the console.
local function thin_tail(p, n) return n < 100 / (100 - p) - 1e-9 end

-- unbounded: the record's pNN has no 95 % interval, so ci_line says
-- "too few samples" for it. A record from before intervals were kept has
-- no pNN_ci member at all: thin_tail decides then.
local function unbounded(d, p)
  local ci = d["p" .. p .. "_ci"]
  if ci == nil then return thin_tail(p, d.n) end
  return type(ci) ~= "table"
end

-- fmt3 is a distribution's p50/p95/p99 and its n, a percentile its n
-- cannot bound marked "*": the same rule as the interval line below it,
-- so a star and "too few samples" never disagree.
local function fmt3(d)
  if type(d) ~= "table" or d.n == 0 then return string.format("%-20s %-6s", "      -", "(n=0)") end
  local cells = {}
  for i, p in ipairs({ 50, 95, 99 }) do
    local mark = unbounded(d, p) and "*" or ""
    if mark ~= "" then text.marked = true end
    cells[i] = string.format("%6s", string.format("%.0f", d["p" .. p]) .. mark)
  end
  return string.format("%s/%s/%s %-6s", cells[1], cells[2], cells[3], "(n=" .. d.n .. ")")
end

-- ci_line is a distribution's p50, p95 and p99 each with its 95 %
-- interval over the same requests (docs/statistics.md), "p95 812 [790,
-- 838]", or "too few samples" where n cannot bound that percentile.
local function ci_line(name, d)
  if type(d) ~= "table" or d.n == 0 then return nil end
  local cells = {}
  for i, p in ipairs({ 50, 95, 99 }) do
    local ci = d["p" .. p .. "_ci"]
    if type(ci) == "table" and type(d["p" .. p]) == "number" then
      cells[i] = string.format("p%d %s [%s, %s]", p, ms(d["p" .. p]), ms(ci[1]), ms(ci[2]))
    else
      cells[i] = string.format("p%d too few samples", p)
    end
  end
  return string.format("  %-9s %s  (n=%d, 95%% intervals)", name, table.concat(cells, "  "), d.n)
end

-- failure_lines are the level's top failure kinds, with counts and one
-- message each.
local MAX_KINDS, MAX_MESSAGE = 3, 300
local function failure_lines(summary, lines)
  if summary.failed == 0 then return end
  lines[#lines + 1] = string.format("  failed %d of %d requests:", summary.failed, summary.requests)
  for i, f in ipairs(summary.failures or {}) do
    if i > MAX_KINDS then
      lines[#lines + 1] = string.format("    ... and %d more kinds (requests.jsonl has every message)", #summary.failures - MAX_KINDS)
      break
    end
    local kind = f.kind .. (type(f.status) == "number" and (" " .. f.status) or "")
    local msg = f.example or ""
    if #msg > MAX_MESSAGE then msg = msg:sub(1, MAX_MESSAGE) .. "..." end
    lines[#lines + 1] = string.format("    %-14s %5d  e.g. %s", kind, f.n, msg)
  end
end

-- client_line warns when the client's own machine may have set the
-- level's figures: its process took most of the machine, or the threads
-- that read the sockets waited for a CPU long enough to move stamps
-- (chunks of one stream that arrive while they wait are read together and
-- share the later one's stamp): over 1 % of the level in all, and 50 µs
-- a time on average. nil when neither, or when the summary has no client
-- (a merge: each shard's machine is its own).
local function client_line(summary)
  local c = summary.client
  if type(c) ~= "table" or not (summary.duration_ms > 0) then return nil end
  local wait = type(c.reader_wait_ms) == "number" and c.reader_wait_ms or 0
  local runs = type(c.reader_runs) == "number" and c.reader_runs or 0
  local share, each = wait / summary.duration_ms, runs > 0 and wait / runs or 0
  if c.busy < 0.8 and (share < 0.01 or each < 0.05) then return nil end
  return string.format("  client busy: %.0f%% of %d cores; its reader waited %.0f ms for a CPU (%.1f%% of the level, %.2f ms a time "
    .. "on average): chunks that came meanwhile share a read and its stamp; run the client on another machine or fewer calls",
    c.busy * 100, c.cores, wait, share * 100, each)
end

-- bounds is a percentile's 95 % interval as a record keeps it ({lo, hi},
-- each null where no order statistic bounds that side): "[790, 838]".
-- A missing upper bound is "inf" (beyond the largest value, or a late
-- request); a missing lower bound under a finite value is "0", as no time
-- is below it (too few samples to bound it from below), and "inf" under
-- a value that is itself late.
function text.bounds(value, ci)
  local function b(x) return type(x) == "number" and ms(x) or "inf" end
  local lo = (type(ci[1]) ~= "number" and type(value) == "number") and "0" or b(ci[1])
  return string.format("[%s, %s]", lo, b(ci[2]))
end

-- thirds_text is "p50 of each third 12 [10, 14] -> 80 [70, 95] -> 200
-- [180, inf] ms" for a level's trend record (steady, over_saturated).
function text.thirds_text(rec)
  local parts = {}
  for i, w in ipairs(rec.thirds) do
    parts[i] = string.format("%s %s", type(w.p50_ms) == "number" and ms(w.p50_ms) or "inf", text.bounds(w.p50_ms, w.ci_ms))
  end
  return "p50 of each third " .. table.concat(parts, " -> ") .. " ms"
end

-- header is the table's first line; mode is "rate" or "concurrency".
function text.header(mode)
  return string.format("\n%-8s %6s %12s  %-27s %-27s %9s %8s  %s", mode == "rate" and "rate/s" or "at once", "calls",
    "requests ok", "ttft p50/95/99", "1st sent p50/95/99", "tok/s", "goodput", "SLO")
end

-- held_but_failed says a level missed for its failed requests alone:
-- every SLO held, yet a level holds only when no request failed.
local function held_but_failed(row)
  if row.slo_met or row.interrupted or type(row.over_saturated) == "table" or type(row.slo) ~= "table" or #row.slo == 0 then
    return false
  end
  for _, v in ipairs(row.slo) do
    if not v.met then return false end
  end
  return row.summary.failed > 0
end

-- level_lines are a level's lines: its row of the table (label first,
-- e.g. "4" or "4 #2"), the intervals of its percentiles, each SLO's value,
-- what speaking cost (opts.engine names the speech engine), requests that
-- streamed no content, its failures, a busy client, and a level whose
-- lateness moved (not steady). An over-saturated level's line is the
-- caller's, who knows when it stopped.
function text.level_lines(label, row, opts)
  opts = opts or {}
  local s = row.summary
  local verdict = row.interrupted and "interrupted" or (row.slo_met and "met" or "missed")
  local lines = {}
  lines[1] = string.format("%-8s %6d %12s  %-27s %-27s %9.1f %7s  %s", label, s.calls, s.ok .. "/" .. s.requests,
    fmt3(s.ttft_ms), fmt3(s.first_sentence_ms), type(s.tokens_per_s) == "number" and s.tokens_per_s or 0,
    type(row.goodput) == "number" and string.format("%.0f%%", row.goodput * 100) or "-", verdict)
  for _, f in ipairs({ { "ttft", s.ttft_ms }, { "1st sent", s.first_sentence_ms }, { "1st audio", s.first_audio_ms },
    { "underrun", s.underrun_ms } }) do
    local l = ci_line(f[1], f[2])
    if l then lines[#lines + 1] = l end
  end
  -- Each SLO's value, the one its verdict was judged on (failed and
  -- missing requests counted as infinitely late).
  -- Its star follows the row's: the percentile the distribution of the
  -- same figure above cannot bound (or, without one, too few requests).
  for _, v in ipairs(type(row.slo) == "table" and row.slo or {}) do
    local d = s[v.metric]
    local star = thin_tail(v.percentile, v.n) or (type(d) == "table" and (d.n or 0) > 0 and unbounded(d, v.percentile))
    local value = type(v.value_ms) == "number" and (ms(v.value_ms) .. " ms" .. (star and "*" or ""))
      or "none: the percentile falls on a failed or missing request"
    if type(v.value_ms) == "number" and star then text.marked = true end
    lines[#lines + 1] = string.format("  SLO %s p%g %s (limit %g ms, n=%d): %s", v.metric, v.percentile, value, v.limit_ms, v.n,
      v.met and "met" or "missed")
  end
  if held_but_failed(row) then
    lines[#lines + 1] = string.format("  missed: every SLO held, but %d of %d requests failed; a level holds only when none fails",
      s.failed, s.requests)
  end
  if type(row.tts_cpu_ms_per_audio_s) == "number" and opts.engine then
    lines[#lines + 1] = string.format("  speech: %s used %.1f ms of CPU per second of audio (on this machine, beside the client)",
      opts.engine, row.tts_cpu_ms_per_audio_s)
  end
  -- Requests that ended without an error yet streamed no content (a
  -- server that sends usage alone): no figure, and no failure either.
  if type(s.ttft_ms) == "table" and type(s.ttft_ms.n) == "number" and s.ok > s.ttft_ms.n then
    lines[#lines + 1] = string.format("  %s%d of the %d requests that ended without an error streamed no content (no first token): "
      .. "the server answered with nothing to time", s.failed > 0 and "at least " or "", s.ok - s.ttft_ms.n, s.ok)
  end
  failure_lines(s, lines)
  lines[#lines + 1] = client_line(s)
  local steady = row.steady
  if type(row.over_saturated) ~= "table" and type(steady) == "table" and steady.known and not steady.steady then
    -- A third whose median is late (inf) holds mostly failed requests or
    -- ones that never reached the figure: a warm-up would not help.
    local late = false
    for _, w in ipairs(steady.thirds) do
      if type(w.p50_ms) ~= "number" then late = true end
    end
    lines[#lines + 1] = string.format("  not steady: %s moved over the level (%s): its first and last thirds disagree; %s",
      steady.metric, text.thirds_text(steady), late and "a third is mostly requests that failed or never reached the figure (inf)"
        or "try --warmup")
  end
  return lines
end

-- legend explains the table; scope is what the percentiles are over
-- beyond their requests ("over every shard's requests"), or nil.
function text.legend(scope)
  local lines = {
    "",
    "calls: the calls that ran; requests ok: of their requests (one per turn), those that ended without an error.",
    "ttft: p50/p95/p99 over the requests with a first token; 1st sent: over those with a complete first",
    "sentence (n: how many)" .. (scope and (", " .. scope) or "") .. ". The SLO and goodput count a failed request as infinitely late.",
  }
  if text.marked then
    lines[#lines + 1] = "*: too few samples to bound this percentile (no 95 % interval: the line below says so); under 20"
    lines[#lines + 1] = "  requests a p95 (100 a p99) is the largest value or near it, not the tail it names."
  end
  return lines
end

-- unit names a level: " calls/s" in an open loop, " call(s) at once"
-- in a closed one.
function text.unit(mode, level)
  if mode == "rate" then return " calls/s" end
  return level == 1 and " call at once" or " calls at once"
end

-- state is what else a level's row says of why it did not hold, for the
-- capacity line: " (over-saturated: ...)" (its lateness kept rising and no
-- new call started), " (interrupted: ...)" (the run was stopped in it), or
-- "".
function text.state(row)
  if type(row.over_saturated) == "table" then return " (over-saturated: its lateness kept rising)" end
  if row.interrupted then return " (interrupted: the run was stopped in it)" end
  return ""
end

-- capacity_line is a sweep's capacity (no search): the highest level
-- whose SLOs held, what the first SLO was there and at the level above;
-- levels in order, capacity and above rows of them or nil, lowest the
-- first level asked for.
function text.capacity_line(mode, levels, capacity, above, lowest)
  if capacity then
    local s = capacity.slo[1]
    local line = string.format("capacity: %g%s (%s p%g %.0f ms <= %g ms)", capacity.level, text.unit(mode, capacity.level),
      s.metric, s.percentile, s.value_ms, s.limit_ms)
    if above then
      local a = above.slo[1]
      local why = a.failed > 0 and string.format("%d of %d failed", a.failed, a.n) or
        string.format("%d of %d without the figure", a.missing, a.n)
      line = line .. string.format("; at %g: %s%s", above.level,
        type(a.value_ms) == "number" and string.format("%.0f ms", a.value_ms) or ("no value: " .. why), text.state(above))
      if held_but_failed(above) then
        line = line .. string.format(", but %d of %d requests failed", above.summary.failed, above.summary.requests)
      end
    else
      -- The highest level held; one below it may not have (a server
      -- that warmed up, a noisy level): say so rather than "every".
      local missed = {}
      for _, r in ipairs(levels) do
        if r.level < capacity.level and not r.slo_met then missed[#missed + 1] = string.format("%g", r.level) end
      end
      if #missed == 0 then
        line = line .. "; every level held: try higher ones"
      else
        line = line .. string.format("; the highest level held, but %s below it did not: rerun %s, or try higher ones",
          table.concat(missed, ", "), #missed == 1 and "it" or "them")
      end
    end
    return line
  end
  local first = levels[1]
  if first == nil and lowest == nil then return "capacity: none: no level ran" end
  local why = "misses the SLO"
  if first and first.summary.requests > 0 and first.summary.failed == first.summary.requests then
    why = "failed every request"
  elseif first and held_but_failed(first) then
    why = string.format("has failed requests (%d of %d)", first.summary.failed, first.summary.requests)
  end
  if first then why = why .. text.state(first) end
  local level = first and first.level or lowest
  return string.format("capacity: none: already %g%s %s", level, text.unit(mode, level), why)
end

return text
