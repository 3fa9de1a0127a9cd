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

-- need_timings returns the server's timings or raises: llama-server sends
-- them in its last chunk; other servers may not.
function M.need_timings(timings, what)
  if timings == nil then
    error(what .. ": the server sent no `timings` object (llama-server does); " ..
      "prompt_n and prompt_ms cannot be read", 2)
  end
  return timings
end

-- need_docs returns the KB's documents, at least n of them.
function M.need_docs(n)
  local docs = kb_docs()
  if #docs < n then
    error(string.format("the KB in %s has %d documents; this step needs at least %d (pass --kb DIR)",
      tostring(KB_DIR or "the bundled KB"), #docs, n), 2)
  end
  return docs
end

return M
