-- Step 3: time to first token over identical requests (REPEAT of them,
-- --repeat, default 6) with the prompt cache off, so each one pays the
-- full prefill (where the server ignores cache_prompt false, each prompt
-- starts with a line of its own: labconf.cold, recorded as cold_prompt).
-- Runs that cannot tell the first token from the end are repeated and
-- listed in `discarded` (see labconf.timed_stream).
local stats = require("stats")
local conf = dofile("labconf.lua")

local ttfts, totals, discarded = {}, {}, {}
local cold_note
local runs = conf.repeated("ttft", function(i)
  local messages
  messages, cold_note = conf.cold(conf.messages(conf.SYSTEM_ONE, conf.Q_NEW_PATIENT))
  local chunks, total_ms, timings, info, set_aside = conf.timed_stream(messages, { cache_prompt = false }, "ttft run " .. i)
  ttfts[i], totals[i] = info.ttft_ms, total_ms
  for _, d in ipairs(set_aside) do discarded[#discarded + 1] = d end
  return { ttft_ms = info.ttft_ms, total_ms = total_ms, tokens = timings and timings.predicted_n or #chunks,
    stamp_source = info.stamp_source }
end)

local result = { ["repeat"] = conf.REPEAT, runs = runs, ttft_p50 = stats.median(ttfts), total_p50 = stats.median(totals) }
if #discarded > 0 then result.discarded = discarded end
result.cold_prompt = cold_note
write_json("ttft.json", result)

local line = string.format("ttft p50 %.1f ms, total p50 %.1f ms (%d runs, cache off%s%s)", result.ttft_p50,
  result.total_p50, #runs, cold_note and " by a unique first line" or "", #discarded > 0 and (", " .. #discarded .. " repeated") or "")
print("ttft: " .. line)
return line
