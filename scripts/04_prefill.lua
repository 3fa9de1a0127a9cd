-- Step 4: how prefill grows with the prompt: 0, 4 and 12 KB documents
-- appended to the system prompt, cache off.
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local DOC_COUNTS = { 0, 4, 12 }
local docs = conf.need_docs(DOC_COUNTS[#DOC_COUNTS])

-- One unrecorded request first, so the 0-docs row does not carry a cold
-- start when this step runs alone.
stream(conf.messages(conf.SYSTEM_ONE, conf.Q_SATURDAY), { max_tokens = 4, cache_prompt = false })

local rows, parts = {}, {}
for _, n in ipairs(DOC_COUNTS) do
  local system = prompt.build(conf.SYSTEM_ONE, docs, n)
  local _, _, timings, info = stream(conf.messages(system, conf.Q_SATURDAY),
    { max_tokens = 32, cache_prompt = false })
  local t = conf.need_timings(timings, "prefill with " .. n .. " docs")
  rows[#rows + 1] = { docs = n, prompt_n = t.prompt_n, prompt_ms = t.prompt_ms,
    ttft_ms = conf.need_ttft(info, "prefill with " .. n .. " docs") }
  parts[#parts + 1] = string.format("%d docs: %d tok %.1f ms", n, t.prompt_n, info.ttft_ms)
end
write_json("prefill.json", rows)

local line = table.concat(parts, "; ")
print("prefill: " .. line)
return line
