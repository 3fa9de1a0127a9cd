-- Step 6: when the first sentence is complete, the moment a voice agent can
-- start speaking.
local sentence = require("sentence")
local speech = require("speech")
local conf = dofile("labconf.lua")

local chunks, total_ms, _, info, discarded = conf.timed_stream(conf.messages(conf.SYSTEM_THREE, conf.Q_FASTING),
  { max_tokens = 120 }, "sentence")
local ttft = info.ttft_ms
local first, first_ms = sentence.first_time(chunks)
if first == nil then
  error("sentence: the answer is empty or only white space; no sentence to time")
end

-- Every chunk with its arrival, so a report can draw the answer as it came.
local text, timed = {}, {}
for i, c in ipairs(chunks) do
  text[i] = c.text
  timed[i] = { t_ms = c.t_ms, text = c.text }
end

-- Played back as a speaker would at 15 characters a second: does the text
-- keep ahead of the voice?
local CHARS_PER_S = 15
local p = speech.pacing(chunks, { chars_per_s = CHARS_PER_S })
local spoken = json_array()
for i, s in ipairs(p.sentences) do
  spoken[i] = { text = s.text, ready_ms = s.ready_ms, start_ms = s.start_ms, end_ms = s.end_ms }
end

write_json("sentence.json", {
  ttft_ms = ttft,
  first_sentence_ms = first_ms,
  total_ms = total_ms,
  first_sentence = first,
  text = table.concat(text),
  chunks = timed,
  stamp_source = info.stamp_source,
  discarded = #discarded > 0 and discarded or nil,
  pacing = {
    chars_per_s = CHARS_PER_S, tts_ms = 0,
    start_ms = p.start_ms, end_ms = p.end_ms, stall_ms = p.stall_ms, stalls = p.stalls,
    first_clause_ms = p.first_clause_ms or json_null,
    sentences = spoken,
  },
})

local quoted = string.format("%q", first):gsub("\\\n", "\\n") -- on one line
local line = string.format("ttft %.1f ms, first sentence %.1f ms, total %.1f ms, spoken with %d stalls (%.0f ms): %s",
  ttft, first_ms, total_ms, p.stalls, p.stall_ms, quoted)
print("sentence: " .. line)
return line
