-- Step 6: when the first sentence is complete, the moment a voice agent can
-- start speaking. REPEAT answers (--repeat, default 6), each played back as
-- a speaker would say it. An answer that came off the socket whole in one
-- read (the client was not scheduled while the server streamed) cannot
-- tell its first token, first sentence and end apart: it is set aside with
-- why and measured again (labconf.repeated), as is an answer with no
-- sentence at all. A first sentence complete in the read of the first
-- token is what the client saw, and stays (a fast model's first sentence
-- comes a few ms after its first token, within one time slice of a busy
-- machine).
local sentence = require("sentence")
local speech = require("speech")
local conf = dofile("labconf.lua")

-- Played back as a speaker would at 15 characters a second: does the text
-- keep ahead of the voice?
local CHARS_PER_S = 15
local messages = conf.messages(conf.SYSTEM_THREE, conf.Q_FASTING)

local first_chunks
local runs, discarded = conf.repeated("sentence", function(k)
  local chunks, total_ms, _, info = stream(messages, { max_tokens = 120 })
  local ttft = conf.need_ttft(info, "sentence repetition " .. k)
  local first, first_ms = sentence.first_time(chunks)
  if first == nil then
    return nil, "the answer is empty or only white space: no sentence to time"
  end
  local one = conf.one_read(ttft, total_ms)
  if one then return nil, one end
  local text = {}
  for i, c in ipairs(chunks) do text[i] = c.text end
  local p = speech.pacing(chunks, { chars_per_s = CHARS_PER_S })
  local spoken = json_array()
  for i, s in ipairs(p.sentences) do
    spoken[i] = { text = s.text, ready_ms = s.ready_ms, start_ms = s.start_ms, end_ms = s.end_ms }
  end
  if k == 1 then first_chunks = chunks end
  return {
    ttft_ms = ttft,
    first_sentence_ms = first_ms,
    total_ms = total_ms,
    first_sentence = first,
    text = table.concat(text),
    stamp_source = info.stamp_source,
    pacing = {
      chars_per_s = CHARS_PER_S, tts_ms = 0,
      start_ms = p.start_ms, end_ms = p.end_ms, stall_ms = p.stall_ms, stalls = p.stalls,
      first_clause_ms = p.first_clause_ms or json_null,
      sentences = spoken,
    },
  }
end)

-- The top level is the first repetition, as the file held before the step
-- repeated, with every chunk of its answer and their arrival, so a report
-- can draw the answer as it came.
local result = {}
for key, v in pairs(runs[1]) do result[key] = v end
local timed = json_array()
for i, c in ipairs(first_chunks) do timed[i] = { t_ms = c.t_ms, text = c.text } end
result.chunks = timed
result["repeat"] = conf.REPEAT
result.runs = runs
if #discarded > 0 then result.discarded = discarded end
write_json("sentence.json", result)

local function p50(pick) return conf.median_of(runs, pick) end
local quoted = string.format("%q", runs[1].first_sentence):gsub("\\\n", "\\n") -- on one line
local line = string.format("ttft p50 %.1f ms, first sentence p50 %.1f ms, total p50 %.1f ms, spoken with stalls p50 %.0f ms (%d runs%s): %s",
  p50(function(r) return r.ttft_ms end), p50(function(r) return r.first_sentence_ms end),
  p50(function(r) return r.total_ms end), p50(function(r) return r.pacing.stall_ms end), #runs,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "", quoted)
print("sentence: " .. line)
return line
