-- Step 6: when the first sentence is complete, the moment a voice agent can
-- start speaking.
local sentence = require("sentence")
local conf = dofile("labconf.lua")

local chunks, total_ms, _, info, discarded = conf.timed_stream(conf.messages(conf.SYSTEM_THREE, conf.Q_FASTING),
  { max_tokens = 120 }, "sentence")
local ttft = info.ttft_ms
local first, first_ms = sentence.first_time(chunks)
if first == nil then
  error("sentence: the answer is empty or only white space; no sentence to time")
end

local text = {}
for i, c in ipairs(chunks) do text[i] = c.text end

write_json("sentence.json", {
  ttft_ms = ttft,
  first_sentence_ms = first_ms,
  total_ms = total_ms,
  first_sentence = first,
  text = table.concat(text),
  stamp_source = info.stamp_source,
  discarded = #discarded > 0 and discarded or nil,
})

local line = string.format("ttft %.1f ms, first sentence %.1f ms, total %.1f ms: %q", ttft, first_ms, total_ms, first)
print("sentence: " .. line)
return line
