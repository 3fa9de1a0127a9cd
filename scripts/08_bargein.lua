-- Step 8: barge-in. The caller interrupts a long answer; at once the next
-- user turn goes out, its history holding the part of the answer that had
-- arrived. Does the server keep the cache for it? The same follow-up after
-- the slot's cache was flushed is the cold case to compare with.
--
-- The measurement is repeated REPEAT times (labconf.repeated), each
-- repetition whole: the interrupted answer, the resumed follow-up, the
-- flush and the cold follow-up. The interrupted answer is sent without a
-- flush before it: what it finds cached (the previous repetition's turn)
-- changes neither what the resumed follow-up finds (the interrupted
-- answer's own prompt and tokens) nor what the cold one does (nothing,
-- after its flush). A repetition whose answer ended before the
-- interruption, whose resumed follow-up reused no more than the cold one,
-- or whose cold follow-up still found the turn cached is set aside and
-- measured again.
local prompt = require("prompt")
local stats = require("stats")
local conf = dofile("labconf.lua")

-- The cold follow-up evaluates the whole prompt again, most of a
-- repetition's time: six documents (about 770 tokens) keep it well apart
-- from the resumed one, which evaluates a few dozen.
local DOCS = 6
local CUT_AFTER_CHUNKS = 16
local SLOT_IDLE_LIMIT_MS = 5000
-- The follow-ups are timed to their first token; a few tokens show it.
local FOLLOW_UP_TOKENS = 4
-- A cold follow-up may share the chat template's opening with the flush
-- request, no more: at most this share of its prompt from the cache.
local COLD_CACHED_SHARE = 0.1

local docs = conf.need_docs(DOCS)
local system = prompt.build(conf.SYSTEM_ONE, docs, DOCS)
local question = conf.Q_NUMBERS
local follow_up = conf.Q_BARGE_IN

-- wait_idle polls /slots (or the gauge) until nothing processes; returns
-- that moment on now_ms()'s clock, nil when the server stopped answering
-- the poll.
local function wait_idle(since_ms)
  while true do
    local n = conf.busy()
    if n == nil then return nil end
    if n == 0 then return now_ms() end
    if now_ms() - since_ms > SLOT_IDLE_LIMIT_MS then
      error(string.format("bargein: a slot was still processing %d ms after the cut", SLOT_IDLE_LIMIT_MS))
    end
    sleep_ms(1)
  end
end

local function flush()
  assert(conf.flush())
end

-- measure is one request's figures; cache_n is nil when the server sent
-- no cached-token count (a hosted API that leaves it out).
local function measure(messages, what)
  local _, _, timings, info = stream(messages, { max_tokens = FOLLOW_UP_TOKENS, cache_prompt = true })
  local t = conf.need_tokens(timings, info, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }
end
-- NO_COUNT is the step's answer on a server that does not say what came
-- from its cache: skipped with the reason, as the cache step is.
local NO_COUNT = { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
  "what the kept turn saved cannot be told" }

-- barge_in is one repetition.
local function barge_in()
  local first = conf.messages(system, question)
  local chunks, _, _, info = stream(first, { max_tokens = 1000, body = conf.caps.ignore_eos and { ignore_eos = true } or nil,
    on_chunk = function(c) return c.index < CUT_AFTER_CHUNKS end })
  if not info.cut or #chunks == 0 then
    return nil, string.format("the answer ended after %d chunks, before the interruption at chunk %d",
      #chunks, CUT_AFTER_CHUNKS)
  end
  local closed_at = info.t0_ms + info.closed_at_ms
  local idle_at = wait_idle(closed_at)
  if idle_at == nil then
    return nil, "the server showed no state after the cut (/slots or the running-requests gauge did not answer)"
  end
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
  if resumed.cache_n == nil then error(NO_COUNT) end
  flush()
  local cold = measure(turn, "bargein cold")
  if cold.cache_n == nil then error(NO_COUNT) end

  if not (resumed.cache_n > 0 and resumed.prompt_n < cold.prompt_n) then
    return nil, string.format("the resumed follow-up reused no more than the cold one (resumed prompt_n %d, cache_n %d; cold prompt_n %d)",
      resumed.prompt_n, resumed.cache_n, cold.prompt_n)
  end
  if cold.cache_n > COLD_CACHED_SHARE * (cold.cache_n + cold.prompt_n) then
    return nil, string.format("the cold follow-up took %d of its %d prompt tokens from the cache: the flush did not empty it",
      cold.cache_n, cold.cache_n + cold.prompt_n)
  end
  return { received_tokens = #chunks, closed_at_ms = info.closed_at_ms,
    slot_idle_after_ms = math.max(0, idle_at - closed_at), partial_text = partial, resumed = resumed, cold = cold }
end

local ok, runs, discarded = pcall(conf.repeated, "bargein", barge_in)
if not ok then
  if runs == NO_COUNT then return NO_COUNT end
  error(runs, 0)
end

-- The top level holds the first repetition, as a file of one measurement
-- did; runs every repetition.
local result = { question = question, follow_up = follow_up, docs = DOCS, cut_after_chunks = CUT_AFTER_CHUNKS,
  ["repeat"] = conf.REPEAT, runs = runs }
for k, v in pairs(runs[1]) do result[k] = v end
if #discarded > 0 then result.discarded = discarded end
write_json("bargein.json", result)

-- What showed the server idle: its slots, or its running-requests gauge
-- (a server without /slots), as the cancel step says it.
local _, how = conf.busy()
local received, idles, resumed_ttft, resumed_n, cached_n, cold_ttft, cold_n = {}, {}, {}, {}, {}, {}, {}
for i, r in ipairs(runs) do
  received[i], idles[i] = r.received_tokens, r.slot_idle_after_ms
  resumed_ttft[i], resumed_n[i], cached_n[i] = r.resumed.ttft_ms, r.resumed.prompt_n, r.resumed.cache_n
  cold_ttft[i], cold_n[i] = r.cold.ttft_ms, r.cold.prompt_n
end
local line = string.format("cut after %d chunks; %s idle %.1f ms later; follow-up resumed %d tok (cache_n %d) %.1f ms, cold %d tok %.1f ms (medians of %d runs%s)",
  stats.median(received), how == "slots" and "slot" or "running-requests gauge at 0", stats.median(idles),
  stats.median(resumed_n), stats.median(cached_n), stats.median(resumed_ttft), stats.median(cold_n), stats.median(cold_ttft),
  #runs, #discarded > 0 and (", " .. #discarded .. " set aside") or "")
print("bargein: " .. line)
return line
