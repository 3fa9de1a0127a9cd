-- Step 5: what the prompt cache saves, REPEAT times (--repeat, default 6).
-- The first half of the KB's documents in the system prompt (so the cold
-- prompt grows with the KB, at half the prefill of all of them). Each
-- repetition empties the slot's cache with a short unrelated request
-- (where the server can be flushed), then sends the long request twice
-- (the second reuses the first's prefix), then once more with a line
-- prepended, which changes the very first tokens. Each repetition's
-- prompts start with a line of their own (labconf.fresh), so no cache
-- holds them from an earlier repetition (a host-memory cache, a server
-- that keeps many prompts). A repetition whose first request found its
-- prompt cached, or whose second did not hit, is set aside with why and
-- measured again. Tokens come from timings or usage (cached_tokens).
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local all = conf.need_docs(1)
local DOCS = math.ceil(#all / 2)
local system = prompt.build(conf.SYSTEM_ONE, all, DOCS)
-- The figures are first tokens: two are enough for one to be content.
local MAX_TOKENS = 2

local function measure(messages, what)
  local _, _, timings, info = stream(messages, { cache_prompt = true, max_tokens = MAX_TOKENS })
  local t = conf.need_tokens(timings, info, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }, t.source
end

-- NO_COUNT stops the repetitions of a server that sends no cached-token
-- count: the step is skipped with why.
local NO_COUNT = { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
  "what the cache saved cannot be told" }

local source, no_flush
local function repetition(k)
  local flushed, why = conf.flush()
  if not flushed then no_flush = why end
  local first_msgs = conf.fresh(conf.messages(system, conf.Q_SATURDAY))
  local first
  first, source = measure(first_msgs, "cache first")
  if first.cache_n == nil then error(NO_COUNT, 0) end
  local total = first.prompt_n + first.cache_n
  if first.cache_n * 10 > total then
    return nil, string.format("first found %d of its %d prompt tokens in the cache: it was not cold", first.cache_n, total)
  end
  local second = measure(first_msgs, "cache second")
  if second.cache_n == nil then error(NO_COUNT, 0) end
  if second.prompt_n * 10 > first.prompt_n then
    return nil, string.format("second evaluated %d of first's %d prompt tokens again: it did not hit the cache",
      second.prompt_n, first.prompt_n)
  end
  local changed_msgs = conf.messages(prompt.prepend(first_msgs[1].content, conf.CHANGED_LINE), conf.Q_SATURDAY)
  return { first = first, second = second, changed_prefix = measure(changed_msgs, "cache changed_prefix") }
end

local ok, runs, discarded = pcall(conf.repeated, "cache", repetition)
if not ok then
  if runs == NO_COUNT then return NO_COUNT end
  error(runs, 0)
end

-- The top level holds the first repetition, as the file did before it
-- had runs.
local one = runs[1]
local result = { first = one.first, second = one.second, changed_prefix = one.changed_prefix, docs = DOCS,
  ["repeat"] = conf.REPEAT, runs = runs }
if #discarded > 0 then result.discarded = discarded end
-- How it was measured on this kind of server: where the tokens came from,
-- how each repetition's prompts stayed apart, why nothing was flushed.
result.method = { tokens_from = source, cold_prompt = "a line of its own at the very front of each repetition's prompts",
  flush = no_flush }
write_json("cache.json", result)

local function med(part, field)
  return conf.median_of(runs, function(r) return r[part][field] end)
end
local line = string.format("first %g tok %.1f ms; second %g tok %.1f ms; changed prefix %g tok %.1f ms " ..
  "(%d docs, medians of %d runs%s)",
  med("first", "prompt_n"), med("first", "ttft_ms"), med("second", "prompt_n"), med("second", "ttft_ms"),
  med("changed_prefix", "prompt_n"), med("changed_prefix", "ttft_ms"), DOCS, #runs,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "")
print("cache: " .. line)
return line
