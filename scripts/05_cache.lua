-- Step 5: what the prompt cache saves. All KB docs in the system prompt; a
-- short unrelated request first empties the slot's cache; then the long
-- request twice (the second reuses the first's prefix), then once more with
-- a line prepended, which changes the very first tokens.
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local docs = conf.need_docs(1)
local system = prompt.build(conf.SYSTEM_ONE, docs, #docs)

stream({ { role = "user", content = "hi" } }, { max_tokens = 8, cache_prompt = true })

local function measure(sys, what)
  local _, _, timings, info = stream(conf.messages(sys, conf.Q_SATURDAY), { cache_prompt = true })
  local t = conf.need_timings(timings, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }
end

local result = {}
result.first = measure(system, "cache first")
result.second = measure(system, "cache second")
result.changed_prefix = measure(prompt.prepend(system, conf.CHANGED_LINE), "cache changed_prefix")
write_json("cache.json", result)

local line = string.format("first %d tok %.1f ms; second %d tok %.1f ms; changed prefix %d tok %.1f ms",
  result.first.prompt_n, result.first.ttft_ms, result.second.prompt_n, result.second.ttft_ms,
  result.changed_prefix.prompt_n, result.changed_prefix.ttft_ms)
print("cache: " .. line)
return line
