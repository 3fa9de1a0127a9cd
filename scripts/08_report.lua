-- Step 8: the headline numbers, copied from the artifacts of steps 3-7.
local function find_docs(rows, n)
  for _, r in ipairs(rows) do
    if r.docs == n then return r end
  end
  error("prefill.json has no row for " .. n .. " docs")
end

-- The model the numbers belong to, from step 1's /props. A synthetic model
-- (`ttftlab model synth`) names itself in its chat template, which /props
-- shows; any other model is named by its alias or file name.
local function model_of(p)
  local path = type(p.model_path) == "string" and p.model_path or nil
  local synthetic = type(p.chat_template) == "string" and p.chat_template:match("ttftlab synthetic model ([^%s:]+):")
  local name = synthetic or (type(p.model_alias) == "string" and p.model_alias ~= path and p.model_alias) or
    (path and (path:match("([^/]+)%.gguf$") or path:match("[^/]+$")))
  return json_object({ name = name or json_null, path = path or json_null, synthetic = synthetic ~= nil })
end

local model = model_of(read_json("props.json"))
local ttft = read_json("ttft.json")
local prefill = read_json("prefill.json")
local cache = read_json("cache.json")
local sent = read_json("sentence.json")
local cancel = read_json("cancel.json")
local row12 = find_docs(prefill, 12)

local report = {
  ttft_p50_ms = ttft.ttft_p50,
  total_p50_ms = ttft.total_p50,
  ttft_12docs_ms = row12.ttft_ms,
  prompt_n_12docs = row12.prompt_n,
  cache_ttft_ms = cache.second.ttft_ms,
  first_sentence_ms = sent.first_sentence_ms,
  cancel_idle_ms = cancel.slot_idle_after_ms,
  model = model,
}
write_json("report.json", report)

local line = string.format("report.json: model %s%s, ttft p50 %.1f ms, total p50 %.1f ms, cached ttft %.1f ms, first sentence %.1f ms",
  tostring(model.name), model.synthetic and " (synthetic)" or "",
  report.ttft_p50_ms, report.total_p50_ms, report.cache_ttft_ms, report.first_sentence_ms)
print("report: " .. line)
return line
