-- Step 3: time to first token over five identical requests with the prompt
-- cache off, so each one pays the full prefill.
--
-- A run whose whole answer came off the socket in one read (ttft == total:
-- the client was not scheduled while the server streamed) cannot tell the
-- first token from the end. It is set aside in `discarded` and run again,
-- at most MAX_EXTRA times over the five.
local stats = require("stats")
local conf = dofile("labconf.lua")

local RUNS, MAX_EXTRA = 5, 5

local runs, ttfts, totals, discarded = {}, {}, {}, {}
while #runs < RUNS do
  local chunks, total_ms, timings, info = stream(conf.messages(conf.SYSTEM_ONE, conf.Q_NEW_PATIENT),
    { cache_prompt = false })
  local run = { ttft_ms = conf.need_ttft(info, "ttft run " .. (#runs + 1)), total_ms = total_ms,
    tokens = timings and timings.predicted_n or #chunks }
  if run.ttft_ms < run.total_ms then
    runs[#runs + 1] = run
    ttfts[#runs], totals[#runs] = run.ttft_ms, run.total_ms
  elseif #discarded < MAX_EXTRA then
    run.reason = "whole answer arrived in one read"
    discarded[#discarded + 1] = run
  else
    error(string.format("%d runs arrived whole in one read (ttft == total); the machine is too busy " ..
      "to time this server's first token", #discarded + 1))
  end
end

local result = { runs = runs, ttft_p50 = stats.median(ttfts), total_p50 = stats.median(totals) }
if #discarded > 0 then result.discarded = discarded end
write_json("ttft.json", result)

local line = string.format("ttft p50 %.1f ms, total p50 %.1f ms (5 runs, cache off%s)", result.ttft_p50,
  result.total_p50, #discarded > 0 and (", " .. #discarded .. " discarded") or "")
print("ttft: " .. line)
return line
