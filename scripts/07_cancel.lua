-- Step 7: cancellation. Ask for a long answer, close the connection while it
-- streams, and time how long the server takes to free its slot. The
-- evidence that it stopped: /slots' is_processing (llama.cpp), else the
-- running-requests gauge at /metrics polled until it drops, else none: the
-- cut is then seen from the client's side only, and cancel.json says so
-- (evidence "client", slot_idle_after_ms null).
--
-- A fast server can finish before the cut; then nothing was cancelled, so we
-- retry with more tokens (as far as the context allows) and an earlier cut,
-- and record the values actually used. The measurement is repeated REPEAT
-- times (labconf.repeated); each repetition starts from the values that
-- cut the one before, and retries as the first one does when they do not.
local stats = require("stats")
local conf = dofile("labconf.lua")

local SLOT_IDLE_LIMIT_MS = 5000
local POLL_MS = 2
local MAX_ATTEMPTS = 6
-- How far into the answer a retried cut aims: enough tokens that the
-- server is streaming when the client hangs up, few enough that a fast
-- server's repetition stays short.
local AIM_TOKENS = 32

local evidence, no_evidence = conf.evidence()

local function any_processing()
  if not evidence then return false end
  local n = conf.busy()
  return n ~= nil and n > 0
end

-- wait_idle polls /slots (or the gauge) until nothing processes, and
-- returns the time in now_ms() when it saw that; nil without evidence, or
-- when the server stopped answering the poll.
local function wait_idle(since_ms)
  if not evidence then return nil end
  while true do
    local n = conf.busy()
    if n == nil then return nil end
    if n == 0 then return now_ms() end
    if now_ms() - since_ms > SLOT_IDLE_LIMIT_MS then
      error(string.format("a slot was still processing %d ms after the connection closed: " ..
        "the server did not notice the cancellation", SLOT_IDLE_LIMIT_MS))
    end
    sleep_ms(POLL_MS)
  end
end

-- context_budget is how many tokens the slot can still generate after the
-- prompt.
local function context_budget(prompt_n)
  local n_ctx = conf.n_ctx()
  return math.max(64, n_ctx - (prompt_n or 64) - 16)
end

-- Evidence belongs to this run: the log is searched only after this mark,
-- and cancel.json records it so `ttftlab check` searches the same lines.
local log_from = SERVER_LOG and log_mark() or nil

local messages = conf.messages(conf.SYSTEM_ONE, conf.Q_NUMBERS)
-- The settings of the next attempt. A repetition starts from those that
-- cut the one before, so only the first one searches.
local max_tokens, cut_after_ms, body = 256, 500, nil

-- cut_once is one repetition: attempts until one cuts the stream before
-- its end, then the time the server took to stop. Nil and why when the
-- server showed no state after the cut.
local function cut_once()
  local attempts = {}
  for _ = 1, MAX_ATTEMPTS do
    if any_processing() then wait_idle(now_ms()) end
    local chunks, total_ms, timings, info = stream(messages,
      { max_tokens = max_tokens, cut_after_ms = cut_after_ms, body = body })
    -- The close time on now_ms()'s clock, to time the slot going idle from it.
    local closed_at = info.cut and (info.t0_ms + info.closed_at_ms) or nil
    local really_cut = info.cut and not info.done and info.finish_reason == nil and
      #chunks > 0 and #chunks < max_tokens
    attempts[#attempts + 1] = { max_tokens = max_tokens, cut_after_ms = cut_after_ms,
      received_tokens = #chunks, done = info.done, cut = info.cut, total_ms = total_ms,
      finish_reason = info.finish_reason, ignore_eos = body ~= nil }

    if really_cut then
      local idle_at = wait_idle(closed_at)
      if evidence and idle_at == nil then
        return nil, string.format("the server showed no state after the cut (%s did not answer)",
          evidence == "slots" and "/slots" or "the running-requests gauge")
      end
      -- The arrival of every chunk up to the cut, for a report's timeline.
      local chunk_ms = {}
      for i, c in ipairs(chunks) do chunk_ms[i] = c.t_ms end
      return { max_tokens = max_tokens, cut_after_ms = cut_after_ms, received_tokens = #chunks,
        closed_at_ms = info.closed_at_ms,
        slot_idle_after_ms = idle_at and math.max(0, idle_at - closed_at) or json_null,
        evidence = evidence or "client", no_evidence = no_evidence,
        done = info.done, cut = info.cut, ignore_eos = body ~= nil, chunk_ms = chunk_ms,
        attempts = attempts }
    end

    if info.cut then
      wait_idle(closed_at)
      if #chunks == 0 then
        -- Cut during the prefill: nothing streamed yet, so cut later.
        cut_after_ms = cut_after_ms * 2
      else
        -- Every token had arrived: ask for more.
        max_tokens = context_budget(nil)
      end
    else
      -- It finished first. Aim the next cut at about AIM_TOKENS tokens
      -- into the answer (a third of it when it is shorter), using this
      -- run's own decode speed, with as many tokens as fit: far from the
      -- end, and no longer than the figure needs.
      local t = conf.tokens(timings, info, "cancel")
      local prompt_n = t and (t.prompt_n + (t.cache_n or 0)) or nil
      max_tokens = context_budget(prompt_n)
      local ttft = info.ttft_ms or 0
      local per_token = (#chunks > 1) and (total_ms - ttft) / (#chunks - 1) or 1
      -- Never later than the cut that came too late.
      local aim = math.floor(ttft + per_token * math.min(AIM_TOKENS, max_tokens / 3))
      cut_after_ms = math.max(1, math.min(aim, math.floor(cut_after_ms * 0.8)))
      if (info.finish_reason == "stop" or info.finish_reason == "completed") and conf.caps.ignore_eos then
        -- The model ended on its own (a Responses stream says "completed"
        -- whether it stopped or hit the limit): ask llama-server to keep
        -- going.
        body = { ignore_eos = true }
      end
    end
  end
  write_json("cancel.json", { attempts = attempts, error = "no attempt cut the stream before its end" })
  error("cancel: no attempt cut the stream before its end; see cancel.json's attempts", 0)
end

local runs, discarded = conf.repeated("cancel", cut_once)

-- The top level holds the first repetition, as a file of one measurement
-- did; runs every repetition.
local result = {}
for k, v in pairs(runs[1]) do result[k] = v end
result["repeat"], result.runs = conf.REPEAT, runs
if #discarded > 0 then result.discarded = discarded end

if log_from then
  -- The server logs `cancel task` once it notices the close; give it a moment.
  local deadline = now_ms() + 2000
  result.log_from = log_from
  result.log_cancel_task = log_contains("cancel task", log_from)
  while not result.log_cancel_task and now_ms() < deadline do
    sleep_ms(20)
    result.log_cancel_task = log_contains("cancel task", log_from)
  end
end
write_json("cancel.json", result)

local closed, received, idles = {}, {}, {}
for i, r in ipairs(runs) do
  closed[i], received[i] = r.closed_at_ms, r.received_tokens
  if r.slot_idle_after_ms ~= json_null then idles[#idles + 1] = r.slot_idle_after_ms end
end
local idle = evidence and string.format("%s idle %.1f ms later", evidence == "slots" and "slot" or
  "running-requests gauge at 0", stats.median(idles)) or ("client-side only: " .. no_evidence)
local line = string.format("cut at %.1f ms after %d of %d tokens; %s (medians of %d runs%s)%s",
  stats.median(closed), stats.median(received), result.max_tokens, idle, #runs,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "",
  SERVER_LOG and (result.log_cancel_task and "; log: cancel task" or "; log: NO cancel task") or "")
print("cancel: " .. line)
return line
