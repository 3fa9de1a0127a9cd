-- Step 2: one streamed answer, raw SSE kept byte-exact, one line per content
-- chunk with its arrival time.
local json = require("json")
local conf = dofile("labconf.lua")

-- raw_out appends: every try starts from an empty file.
local chunks, total_ms, _, info = conf.timed_stream(conf.messages(conf.SYSTEM_ONE, conf.Q_NEW_PATIENT),
  { raw_out = "sse_raw.txt" }, "stream", function() write_text("sse_raw.txt", "") end)
local ttft = info.ttft_ms

local lines, text = {}, {}
for i, c in ipairs(chunks) do
  lines[i] = json.encode({ t_ms = c.t_ms, text = c.text })
  text[i] = c.text
end
write_text("chunks.jsonl", table.concat(lines, "\n") .. "\n")

-- %q on one line (Lua 5.1 keeps a newline as a backslash and a newline).
local quoted = string.format("%q", table.concat(text)):gsub("\\\n", "\\n")
local line = string.format("%d chunks, ttft %.1f ms, total %.1f ms: %s", #chunks, ttft, total_ms, quoted)
print("stream: " .. line)
return line
