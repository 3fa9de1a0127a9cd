-- Step 10: the headline numbers, copied from the artifacts of steps 3-9.
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

-- The server's settings: the context and slots /props reports, and, for a
-- server ttftlab started, its threads and host-memory cache from the
-- command line it was started with (unknown otherwise: null).
local function arg_after(args, names)
  for i = 1, #args - 1 do
    for _, n in ipairs(names) do
      if args[i] == n then return tonumber(args[i + 1]) or args[i + 1] end
    end
  end
  return json_null
end

local function server_of(p)
  local gen = type(p.default_generation_settings) == "table" and p.default_generation_settings or {}
  local info = server_info()
  local args = info.tracked and info.args or nil
  return json_object({
    n_ctx = gen.n_ctx or json_null,
    slots = p.total_slots or json_null,
    threads = args and arg_after(args, { "-t", "--threads" }) or json_null,
    cache_ram = args and arg_after(args, { "--cache-ram", "-cram" }) or json_null,
    args = args and json_array(args) or json_null,
    build = p.build_info or json_null,
  })
end

local props = read_json("props.json")
local model = model_of(props)
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
  server = server_of(props),
}
write_json("report.json", report)

local line = string.format("report.json: model %s%s, ttft p50 %.1f ms, total p50 %.1f ms, cached ttft %.1f ms, first sentence %.1f ms",
  tostring(model.name), model.synthetic and " (synthetic)" or "",
  report.ttft_p50_ms, report.total_p50_ms, report.cache_ttft_ms, report.first_sentence_ms)
print("report: " .. line)
return line
