-- Step 13: the headline numbers, copied from the artifacts of steps 3-11
-- (the median over its runs where a step repeats its measurement).
-- It summarises what was measured: a step that did not measure in this
-- run (skipped, because the server cannot give what it measures; failed)
-- leaves its numbers null, and not_measured names it with why. In the lab
-- steps.json says how each step ended; run alone, the folder's steps.json
-- (the last lab's) does, and a file that is not there was not measured.

local function find_docs(rows, n)
  for _, r in ipairs(rows) do
    if r.docs == n then return r end
  end
  error("prefill.json has no row for " .. n .. " docs")
end

local function exists(name)
  local f = io.open(OUT .. "/" .. name, "r")
  if f then f:close() end
  return f ~= nil
end

-- source reads the file of a step that measured, nil for one that did
-- not: check_not_measured names those, with why, by check's own rule.
local not_measured, missed = json_object(), {}
for _, m in ipairs(check_not_measured()) do
  not_measured[m.step], missed[#missed + 1] = m.why, m.step
end
local function source(step)
  if not_measured[step] then return nil end
  return read_json(step .. ".json")
end

-- props.json is llama.cpp's; other kinds have none (server.json says so).
-- run_info: the model the numbers belong to and the server's settings,
-- made as load.json's are.
local props = exists("props.json") and read_json("props.json") or {}
local info = run_info(props)
local model = info.model
local ttft, prefill, cache = source("ttft"), source("prefill"), source("cache")
local sent, cancel, bargein, prefix = source("sentence"), source("cancel"), source("bargein"), source("prefix")
local audio = source("audio")
local row12 = prefill and find_docs(prefill, 12)

-- field is value(t) when step's file t was read, else null.
local function field(t, value)
  if t == nil then return json_null end
  local v = value(t)
  if v == nil then return json_null end
  return v
end

-- median_of is the median of value over a repeated step's runs
-- (labconf.median_of), over its top level in a file written before the
-- step repeated; nil when there is none.
local median_of_runs = dofile("labconf.lua").median_of
local function median_of(t, value)
  return median_of_runs(t.runs or { t }, value)
end

local report = {
  ttft_p50_ms = field(ttft, function(t) return t.ttft_p50 end),
  total_p50_ms = field(ttft, function(t) return t.total_p50 end),
  ttft_12docs_ms = field(row12, function(r) return median_of(r, function(x) return x.ttft_ms end) end),
  prompt_n_12docs = field(row12, function(r) return median_of(r, function(x) return x.prompt_n end) end),
  cache_ttft_ms = field(cache, function(c) return median_of(c, function(r) return r.second.ttft_ms end) end),
  first_sentence_ms = field(sent, function(s) return median_of(s, function(x) return x.first_sentence_ms end) end),
  cancel_idle_ms = field(cancel, function(c) return median_of(c, function(r) return r.slot_idle_after_ms end) end),
  speech_stall_ms = field(sent, function(s) return median_of(s, function(x) return x.pacing and x.pacing.stall_ms end) end),
  first_audio_p50_ms = field(audio, function(a) return a.first_audio_p50 end),
  bargein_resumed_ttft_ms = field(bargein, function(b) return median_of(b, function(r) return r.resumed.ttft_ms end) end),
  bargein_cold_ttft_ms = field(bargein, function(b) return median_of(b, function(r) return r.cold.ttft_ms end) end),
  prefix_front_prompt_n = field(prefix, function(p) return median_of(p, function(r) return r.positions[1].prompt_n end) end),
  prefix_last_prompt_n = field(prefix, function(p)
    return median_of(p, function(r) return r.positions[#r.positions].prompt_n end)
  end),
  not_measured = #missed > 0 and not_measured or nil,
  model = model,
  server = info.server,
}
write_json("report.json", report)

local function ms(v) return type(v) == "number" and string.format("%.1f ms", v) or "not measured" end
local line = string.format("report.json: model %s%s, ttft p50 %s, total p50 %s, cached ttft %s, first sentence %s, first audio p50 %s",
  model.name ~= json_null and tostring(model.name) or "unknown", model.synthetic and " (synthetic)" or "",
  ms(report.ttft_p50_ms), ms(report.total_p50_ms), ms(report.cache_ttft_ms), ms(report.first_sentence_ms),
  ms(report.first_audio_p50_ms))
if #missed > 0 then line = line .. "; not measured: " .. table.concat(missed, ", ") end
print("report: " .. line)
return line
