-- Prompts and helpers shared by the lab's steps. Each step loads it with
-- dofile("labconf.lua"), so the steps also run one by one:
--   ttftlab run scripts/04_prefill.lua
local prompt = require("prompt")

local M = {}

M.SYSTEM_ONE = "You are a clinic phone assistant. Answer in one short sentence."
M.SYSTEM_THREE = "You are a clinic phone assistant. Answer in exactly three short sentences."
M.Q_NEW_PATIENT = "What should a new patient bring?"
M.Q_SATURDAY = "When is the clinic open on Saturday?"
M.Q_FASTING = "How do I prepare for a fasting blood test?"
M.Q_NUMBERS = "List the numbers from 1 to 300, separated by commas."
M.CHANGED_LINE = "Current time: 14:05. "
M.Q_BARGE_IN = "Stop. Just tell me when you open on Saturday."
-- The call step's five spoken questions, short (each turn's audio is
-- sent in real time: the call's length is mostly theirs), and the
-- answers' length.
M.CALL = {
  "When are you open on Saturday?",
  "Where can I park?",
  "What should a new patient bring?",
  "How do I get a refill?",
  "When are lab results ready?",
}
M.CALL_MAX_TOKENS = 60

-- The realtime step's sessions: REALTIME_SESSIONS of the same three
-- turns, the third barging into the second's answer 300 ms after its
-- first audio (barge_after_ms counts from the first audio delta).
M.REALTIME_SESSIONS = 2
M.REALTIME_TURNS = {
  { say = "When are you open on Saturday?" },
  { say = "Where can I park?", barge_after_ms = 300 },
  { say = "Stop. What should a new patient bring?" },
}
-- A turn's figures that are null where the turn never reached them
-- (realtime.json holds them null; session() leaves them out).
M.REALTIME_NULLABLE = { "speech_started_ms", "speech_stopped_ms", "server_audio_start_ms", "server_audio_end_ms",
  "first_transcript_ms", "first_text_ms", "first_audio_ms", "mouth_to_ear_ms", "underrun_ms", "done_ms" }

-- messages builds the two-message chat every step sends.
function M.messages(system, user)
  return prompt.messages(system, user)
end

-- need_ttft returns info.ttft_ms or raises: a request that streamed no
-- content cannot be measured.
function M.need_ttft(info, what)
  if info.ttft_ms == nil then
    error(what .. ": the server streamed no content (finish_reason " ..
      tostring(info.finish_reason) .. "); nothing to time", 2)
  end
  return info.ttft_ms
end

-- one_read is why a run cannot be timed when its whole answer came off
-- the socket in one read (ttft == total), nil when it can.
function M.one_read(ttft, total_ms)
  if ttft < total_ms then return nil end
  return string.format("whole answer arrived in one read (ttft_ms %.3f = total_ms %.3f)", ttft, total_ms)
end

-- need_spoken raises when the speech server failed on a sentence of the
-- answer (stream()'s tts option: info.tts_errors, info.spoken).
function M.need_spoken(info, what)
  if info.tts_errors == 0 then return end
  for _, s in ipairs(info.spoken) do
    if s.error then
      error(string.format("%s: the speech server failed on %q: %s", what, s.text, s.error), 2)
    end
  end
end

-- A run whose whole answer came off the socket in one read (ttft == total:
-- the client was not scheduled while the server streamed) cannot tell the
-- first token from the end. timed_stream repeats such a run, at most
-- MAX_TRIES times, and returns stream()'s four results plus the runs it set
-- aside ({ttft_ms, total_ms, reason}), for the artifact to record.
-- before_each, when given, runs before every try (e.g. to empty a raw_out
-- file).
M.MAX_TRIES = 5

function M.timed_stream(messages, opts, what, before_each)
  local discarded = {}
  for _ = 1, M.MAX_TRIES do
    if before_each then before_each() end
    local chunks, total_ms, timings, info = stream(messages, opts)
    local ttft = M.need_ttft(info, what)
    if ttft < total_ms then
      return chunks, total_ms, timings, info, discarded
    end
    discarded[#discarded + 1] = { ttft_ms = ttft, total_ms = total_ms, reason = "whole answer arrived in one read" }
  end
  error(string.format("%s: %d runs arrived whole in one socket read (ttft == total); the machine is too " ..
    "busy to time this server's first token", what, M.MAX_TRIES), 2)
end

-- How many valid repetitions a repeated step collects: REPEAT (the lab's
-- --repeat), else 6, the fewest samples whose median has a 95 % interval.
M.REPEAT = REPEAT or 6

-- repeated runs a step's measurement until it has n (default M.REPEAT)
-- valid repetitions and returns them in order, with the attempts it set
-- aside:
-- fn(k) measures repetition k (a whole measurement: a cold request and
-- the hit that follows it stay together) and returns its record, or nil
-- and why it is not valid (a cold prompt that hit the cache), which is
-- set aside as {repetition = attempt, reason = why} and measured again.
-- Every attempt takes its turn first (take_turn: A B B A under ttftlab
-- ab). After n set-asides it stops with an error that says why.
function M.repeated(what, fn, n)
  n = n or M.REPEAT
  local runs, discarded = {}, {}
  local attempt = 0
  while #runs < n do
    if #discarded >= n then
      error(string.format("%s: %d of %d repetitions were not valid (last: %s); too few valid ones for its figures",
        what, #discarded, attempt, discarded[#discarded].reason), 2)
    end
    attempt = attempt + 1
    take_turn(what)
    local rec, why = fn(#runs + 1)
    if rec == nil then
      discarded[#discarded + 1] = { repetition = attempt, reason = tostring(why) }
    else
      runs[#runs + 1] = rec
    end
  end
  return runs, discarded
end

-- median_of is the median of pick(run) over a step's repetitions,
-- leaving out runs where it is not a number; nil when none has one. The
-- steps' summary lines and the report step's copies take their medians
-- here.
function M.median_of(runs, pick)
  local xs = {}
  for _, r in ipairs(runs) do
    local v = pick(r)
    if type(v) == "number" then xs[#xs + 1] = v end
  end
  if #xs > 0 then return require("stats").median(xs) end
end

-- need_timings returns the server's timings or raises: llama-server sends
-- them in its last chunk; other servers may not.
function M.need_timings(timings, what)
  if timings == nil then
    error(what .. ": the server sent no `timings` object (llama-server does); " ..
      "prompt_n and prompt_ms cannot be read", 2)
  end
  return timings
end

-- What the server at SERVER offers (server_caps(), docs/servers.md). The
-- steps read it to choose how to measure, and return {skip = why} where
-- the server cannot give what a step measures.
-- Asked for on first use, so the lab's preflight (before any server is
-- up) asks the server nothing.
setmetatable(M, { __index = function(t, k)
  if k == "caps" or k == "kind" then
    rawset(t, "caps", server_caps())
    rawset(t, "kind", t.caps.kind)
    return rawget(t, k)
  end
end })

-- A cold prompt. llama.cpp honours cache_prompt = false; every other kind
-- ignores it, so a request that must not reuse the cache starts with a
-- short line of its own at the very front of the prompt, which changes the
-- first tokens and leaves nothing to reuse. cold(messages) returns the
-- messages to send (a copy) and the note the artifact records (nil when
-- cache_prompt = false does the work).
M.COLD_NOTE = "a unique line at the very front of each prompt: the server ignores cache_prompt false"
function M.cold(messages)
  if not M.caps.cold_prompt then return messages, nil end
  return M.fresh(messages), M.COLD_NOTE
end

-- fresh(messages) returns a copy of messages whose first message starts
-- with a line of its own (the time, the clock's microseconds and a count),
-- so no cache holds a prompt that shares more than the chat template's
-- first tokens with it: not the slot's, not a host-memory cache that keeps
-- earlier prompts (llama.cpp's --cache-ram), not a server's prefix cache.
local fresh_n = 0
function M.fresh(messages)
  fresh_n = fresh_n + 1
  local line = string.format("Call %d-%d-%d.", os.time(), math.floor(now_ms() * 1000) % 1000000000, fresh_n)
  local out = {}
  for i, m in ipairs(messages) do out[i] = { role = m.role, content = m.content } end
  out[1].content = line .. "\n" .. out[1].content
  return out
end

local function number(v)
  if type(v) == "number" then return v end
end

-- tokens returns what a request cost in prompt tokens, from the server's
-- timings (llama.cpp: prompt_n evaluated, cache_n reused, prompt_ms), else
-- from usage (prompt_tokens, of which prompt_tokens_details.cached_tokens
-- came from the cache; input_tokens and input_tokens_details for the
-- Responses API; no server-side prefill time), else nil and why.
-- The result says its source.
function M.tokens(timings, info, what)
  if type(timings) == "table" and number(timings.prompt_n) then
    return { prompt_n = timings.prompt_n, cache_n = number(timings.cache_n) or 0,
      prompt_ms = number(timings.prompt_ms), source = "timings" }
  end
  -- Chat and completions count prompt_tokens; the Responses API
  -- input_tokens.
  local u = info and info.usage
  local total = type(u) == "table" and (number(u.prompt_tokens) or number(u.input_tokens)) or nil
  if total then
    local d = u.prompt_tokens_details
    if type(d) ~= "table" then d = u.input_tokens_details end
    local cached = type(d) == "table" and number(d.cached_tokens) or nil
    return { prompt_n = total - (cached or 0), cache_n = cached, prompt_ms = nil, source = "usage" }
  end
  return nil, string.format("%s: the server sent neither timings nor usage.prompt_tokens; prompt tokens are unknown", what)
end

-- need_tokens is tokens() or an error.
function M.need_tokens(timings, info, what)
  local t, why = M.tokens(timings, info, what)
  if not t then error(why, 2) end
  return t
end

-- flush empties the prompt cache: llama.cpp's slot by a short unrelated
-- request that replaces the cached prompt, vLLM and SGLang by their flush
-- endpoint; false and why where the server offers no way.
function M.flush()
  if M.caps.evict then
    stream({ { role = "user", content = "hi" } }, { max_tokens = 4, cache_prompt = true })
    return true
  end
  if M.caps.flush then
    local _, body, status = post(M.caps.flush, {})
    if status ~= 200 then
      error(string.format("POST %s answered %s: %s", M.caps.flush, tostring(status), body), 2)
    end
    return true
  end
  return false, string.format("the %s server offers no way to empty its prompt cache (cannot flush)", M.kind)
end

-- busy returns how many requests the server is processing and how it
-- knows: /slots' is_processing (llama.cpp), else the metrics gauge of
-- running requests; nil when neither answers (client-side evidence only).
function M.busy()
  if M.caps.slots then
    local ok, s = pcall(slots)
    if ok and type(s) == "table" then
      local n = 0
      for _, slot in ipairs(s) do
        if slot.is_processing then n = n + 1 end
      end
      return n, "slots"
    end
  end
  if M.caps.running_metric then
    local n = running_requests()
    if n then return n, "metrics" end
  end
  return nil
end

-- evidence says how this server shows that it stopped work: "slots",
-- "metrics" (the gauge, polled until it drops), or nil and why.
function M.evidence()
  local _, how = M.busy()
  if how then return how end
  return nil, string.format("the %s server has neither /slots nor a running-requests gauge at /metrics%s", M.kind,
    M.caps.running_metric and (" (" .. M.caps.running_metric .. ")") or "")
end

-- lacks says why the server cannot give what a lab step requires (nil
-- when it can): "prompt_tokens" (timings or usage), "cached_tokens" (how
-- many prompt tokens the cache served), "flush" (emptying the prompt
-- cache), "busy_evidence" (/slots or a running-requests gauge).
function M.lacks(need)
  local c = M.caps
  if need == "prompt_tokens" then
    if not (c.timings or c.usage) then
      return string.format("the %s server reports no prompt tokens (no timings, no usage)", M.kind)
    end
  elseif need == "cached_tokens" then
    if not c.cached_tokens then
      return string.format("the %s server does not say how many prompt tokens came from its cache " ..
        "(no timings.cache_n, no usage.prompt_tokens_details.cached_tokens)", M.kind)
    end
  elseif need == "flush" then
    local ok, why = c.evict or c.flush, nil
    if not ok then _, why = M.flush() end
    return why
  elseif need == "busy_evidence" then
    local how, why = M.evidence()
    if not how then return why end
  else
    error("unknown requirement " .. tostring(need))
  end
end

-- n_ctx is the context a request may fill: /props' per-slot n_ctx on
-- llama.cpp; other kinds do not say, so 2048 is assumed.
function M.n_ctx()
  if M.kind == "llama.cpp" then
    local ok, p = pcall(props)
    if ok and type(p.default_generation_settings) == "table" and number(p.default_generation_settings.n_ctx) then
      return p.default_generation_settings.n_ctx
    end
  end
  return 2048
end

-- need_docs returns the KB's documents, at least n of them; step, when
-- given, is the step that needs them, named in the error (the lab checks
-- every chosen step's need before any runs).
function M.need_docs(n, step)
  local docs = kb_docs()
  if #docs < n then
    local who, out = "this step", ""
    if step then
      who, out = "step " .. step, ", or run the other steps alone: -- STEP..."
    end
    error(string.format("the KB in %s has %d documents; %s needs at least %d (pass --kb DIR%s)",
      tostring(KB_DIR or "the bundled KB"), #docs, who, n, out), 2)
  end
  return docs
end

return M
