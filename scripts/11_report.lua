-- Step 11: the headline numbers, copied from the artifacts of steps 3-10.
local function find_docs(rows, n)
  for _, r in ipairs(rows) do
    if r.docs == n then return r end
  end
  error("prefill.json has no row for " .. n .. " docs")
end

local runinfo = dofile("runinfo.lua")

-- props.json is llama.cpp's; other kinds have none (server.json says so).
local f = io.open(OUT .. "/props.json", "r")
if f then f:close() end
local props = f and read_json("props.json") or {}
local model = runinfo.model_of(props)
local ttft = read_json("ttft.json")
local prefill = read_json("prefill.json")
local cache = read_json("cache.json")
local sent = read_json("sentence.json")
local cancel = read_json("cancel.json")
local bargein = read_json("bargein.json")
local prefix = read_json("prefix.json")
local row12 = find_docs(prefill, 12)

local report = {
  ttft_p50_ms = ttft.ttft_p50,
  total_p50_ms = ttft.total_p50,
  ttft_12docs_ms = row12.ttft_ms,
  prompt_n_12docs = row12.prompt_n,
  cache_ttft_ms = cache.second.ttft_ms,
  first_sentence_ms = sent.first_sentence_ms,
  cancel_idle_ms = cancel.slot_idle_after_ms,
  speech_stall_ms = sent.pacing.stall_ms,
  bargein_resumed_ttft_ms = bargein.resumed.ttft_ms,
  bargein_cold_ttft_ms = bargein.cold.ttft_ms,
  prefix_front_prompt_n = prefix.positions[1].prompt_n,
  prefix_last_prompt_n = prefix.positions[#prefix.positions].prompt_n,
  model = model,
  server = runinfo.server_of(props),
}
write_json("report.json", report)

local line = string.format("report.json: model %s%s, ttft p50 %.1f ms, total p50 %.1f ms, cached ttft %.1f ms, first sentence %.1f ms",
  model.name ~= json_null and tostring(model.name) or "unknown", model.synthetic and " (synthetic)" or "",
  report.ttft_p50_ms, report.total_p50_ms, report.cache_ttft_ms, report.first_sentence_ms)
print("report: " .. line)
return line
