-- Step 5: what the prompt cache saves. All KB docs in the system prompt; a
-- short unrelated request first empties the slot's cache; then the long
-- request twice (the second reuses the first's prefix), then once more with
-- a line prepended, which changes the very first tokens. Where the server
-- ignores cache_prompt false, the first and changed requests start with a
-- line of their own (labconf.cold) and the cache is flushed where it can
-- be; tokens come from timings or usage (cached_tokens).
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local docs = conf.need_docs(1)
local system = prompt.build(conf.SYSTEM_ONE, docs, #docs)

local flushed, no_flush = conf.flush()

local function measure(messages, what)
  local _, _, timings, info = stream(messages, { cache_prompt = true })
  local t = conf.need_tokens(timings, info, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }, t.source
end

local result = {}
local first, cold_note = conf.cold(conf.messages(system, conf.Q_SATURDAY))
local source
result.first, source = measure(first, "cache first")
if result.first.cache_n == nil then
  return { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
    "what the cache saved cannot be told" }
end
result.second = measure(first, "cache second")
result.changed_prefix = measure((conf.cold(conf.messages(prompt.prepend(system, conf.CHANGED_LINE), conf.Q_SATURDAY))),
  "cache changed_prefix")
-- How it was measured on this kind of server: where the tokens came from,
-- how the first request avoided the cache, why nothing was flushed.
result.method = { tokens_from = source, cold_prompt = cold_note, flush = (not flushed) and no_flush or nil }
write_json("cache.json", result)

local line = string.format("first %d tok %.1f ms; second %d tok %.1f ms; changed prefix %d tok %.1f ms",
  result.first.prompt_n, result.first.ttft_ms, result.second.prompt_n, result.second.ttft_ms,
  result.changed_prefix.prompt_n, result.changed_prefix.ttft_ms)
print("cache: " .. line)
return line
