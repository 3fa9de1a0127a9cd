-- Step 8: barge-in. The caller interrupts a long answer; at once the next
-- user turn goes out, its history holding the part of the answer that had
-- arrived. Does the server keep the cache for it? The same follow-up after
-- the slot's cache was flushed is the cold case to compare with.
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local DOCS = 12
local CUT_AFTER_CHUNKS = 16
local SLOT_IDLE_LIMIT_MS = 5000

local docs = conf.need_docs(DOCS)
local system = prompt.build(conf.SYSTEM_ONE, docs, DOCS)
local question = conf.Q_NUMBERS
local follow_up = conf.Q_BARGE_IN

local function any_processing()
  local n = conf.busy()
  return n ~= nil and n > 0
end

-- wait_idle polls /slots until no slot processes; returns that moment on
-- now_ms()'s clock.
local function wait_idle(since_ms)
  while any_processing() do
    if now_ms() - since_ms > SLOT_IDLE_LIMIT_MS then
      error(string.format("bargein: a slot was still processing %d ms after the cut", SLOT_IDLE_LIMIT_MS))
    end
    sleep_ms(1)
  end
  return now_ms()
end

local function flush()
  assert(conf.flush())
end

-- measure is one request's figures; cache_n is nil when the server sent
-- no cached-token count (a hosted API that leaves it out).
local function measure(messages, what)
  local _, _, timings, info = stream(messages, { max_tokens = 16, cache_prompt = true })
  local t = conf.need_tokens(timings, info, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }
end
-- NO_COUNT is the step's answer on a server that does not say what came
-- from its cache: skipped with the reason, as the cache step is.
local NO_COUNT = { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
  "what the kept turn saved cannot be told" }

flush()
local first = conf.messages(system, question)
local chunks, _, _, info = stream(first, { max_tokens = 1000, body = conf.caps.ignore_eos and { ignore_eos = true } or nil,
  on_chunk = function(c) return c.index < CUT_AFTER_CHUNKS end })
if not info.cut or #chunks == 0 then
  error(string.format("bargein: the answer ended after %d chunks, before the interruption at chunk %d",
    #chunks, CUT_AFTER_CHUNKS))
end
local closed_at = info.t0_ms + info.closed_at_ms
local idle_at = wait_idle(closed_at)
local parts = {}
for i, c in ipairs(chunks) do parts[i] = c.text end
local partial = table.concat(parts)

local turn = {
  { role = "system", content = system },
  { role = "user", content = question },
  { role = "assistant", content = partial },
  { role = "user", content = follow_up },
}
local resumed = measure(turn, "bargein resumed")
if resumed.cache_n == nil then return NO_COUNT end
flush()
local cold = measure(turn, "bargein cold")
if cold.cache_n == nil then return NO_COUNT end

write_json("bargein.json", {
  question = question, follow_up = follow_up, docs = DOCS,
  cut_after_chunks = CUT_AFTER_CHUNKS, received_tokens = #chunks,
  closed_at_ms = info.closed_at_ms, slot_idle_after_ms = math.max(0, idle_at - closed_at),
  partial_text = partial, resumed = resumed, cold = cold,
})

-- What showed the server idle: its slots, or its running-requests gauge
-- (a server without /slots), as the cancel step says it.
local _, how = conf.busy()
local line = string.format("cut after %d chunks; %s idle %.1f ms later; follow-up resumed %d tok (cache_n %d) %.1f ms, cold %d tok %.1f ms",
  #chunks, how == "slots" and "slot" or "running-requests gauge at 0", math.max(0, idle_at - closed_at), resumed.prompt_n,
  resumed.cache_n, resumed.ttft_ms, cold.prompt_n, cold.ttft_ms)
print("bargein: " .. line)
return line
