-- Step 6: when the first sentence is complete, the moment a voice agent can
-- start speaking.
local sentence = require("sentence")
local conf = dofile("labconf.lua")

local chunks, total_ms, _, info = stream(conf.messages(conf.SYSTEM_THREE, conf.Q_FASTING), { max_tokens = 120 })
local ttft = conf.need_ttft(info, "sentence")
local first, first_ms = sentence.first_time(chunks)

local text = {}
for i, c in ipairs(chunks) do text[i] = c.text end

write_json("sentence.json", {
  ttft_ms = ttft,
  first_sentence_ms = first_ms,
  total_ms = total_ms,
  first_sentence = first,
  text = table.concat(text),
})

local line = string.format("ttft %.1f ms, first sentence %.1f ms, total %.1f ms: %q", ttft, first_ms, total_ms, first)
print("sentence: " .. line)
return line
