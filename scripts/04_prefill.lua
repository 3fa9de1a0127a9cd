-- Step 4: how prefill grows with the prompt: 0, 4 and 12 documents of the knowledge base
-- appended to the system prompt, cache off (labconf.cold where the server
-- ignores cache_prompt false). Prompt tokens come from timings or usage
-- (labconf.tokens); prompt_ms, the server's own prefill time, only from
-- llama.cpp's timings: null elsewhere, and the artifact says so.
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local DOC_COUNTS = { 0, 4, 12 }
local docs = conf.need_docs(DOC_COUNTS[#DOC_COUNTS])

-- One unrecorded request first, so the 0-docs row does not carry a cold
-- start when this step runs alone.
stream((conf.cold(conf.messages(conf.SYSTEM_ONE, conf.Q_SATURDAY))), { max_tokens = 4, cache_prompt = false })

local rows, parts, source, cold_note = {}, {}, nil, nil
for _, n in ipairs(DOC_COUNTS) do
  local system = prompt.build(conf.SYSTEM_ONE, docs, n)
  local messages
  messages, cold_note = conf.cold(conf.messages(system, conf.Q_SATURDAY))
  local _, _, timings, info = stream(messages, { max_tokens = 32, cache_prompt = false })
  local t = conf.need_tokens(timings, info, "prefill with " .. n .. " docs")
  source = t.source
  rows[#rows + 1] = { docs = n, prompt_n = t.prompt_n, prompt_ms = t.prompt_ms or json_null,
    ttft_ms = conf.need_ttft(info, "prefill with " .. n .. " docs"), tokens_from = t.source,
    cold_prompt = cold_note,
    note = t.prompt_ms == nil and "no server-side prefill time from this server (no timings.prompt_ms): ttft only" or nil }
  parts[#parts + 1] = string.format("%d docs: %d tok %.1f ms", n, t.prompt_n, info.ttft_ms)
end
write_json("prefill.json", rows)

local line = table.concat(parts, "; ") .. (source ~= "timings" and ("; tokens from " .. source .. ", no prompt_ms") or "")
print("prefill: " .. line)
return line
