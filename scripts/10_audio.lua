-- Step 10: when the caller first hears the answer. REPEAT times (--repeat,
-- default 6) the same question, each sentence of the answer sent to the
-- speech server the moment it is complete (stream()'s tts option, the
-- voice module), its audio played back as a speaker plays it. The speech
-- server is --tts, or the default engine (espeak-ng, a formant synthesizer:
-- its timings are not a neural voice's), which the lab starts for this
-- step. A run whose whole answer came off the socket in one read cannot
-- tell the first token from the end: it is set aside with why and measured
-- again (labconf.repeated).
local stats = require("stats")
local conf = dofile("labconf.lua")

local tts, why = tts_info()
if tts == nil then
  return { skip = why }
end

local timeline
local runs, discarded = conf.repeated("audio", function(i)
  local chunks, total_ms, _, info = stream(conf.messages(conf.SYSTEM_THREE, conf.Q_FASTING), { max_tokens = 120, tts = true })
  local ttft = conf.need_ttft(info, "audio run " .. i)
  conf.need_spoken(info, "audio run " .. i)
  local one = conf.one_read(ttft, total_ms)
  if one then return nil, one end
  local first = info.spoken[1]
  if first == nil or info.first_audio_ms == nil then
    error(string.format("audio run %d: no audio came for an answer of %d chunks", i, #chunks))
  end
  local audio_ms = 0
  for _, s in ipairs(info.spoken) do audio_ms = audio_ms + s.audio_ms end
  if i == 1 then
    local spoken, timed = json_array(), json_array()
    for k, s in ipairs(info.spoken) do
      spoken[k] = { text = s.text, voice = s.voice, ready_ms = s.ready_ms, tts_sent_ms = s.tts_sent_ms,
        first_audio_ms = s.first_audio_ms, first_voiced_ms = s.first_voiced_ms, audio_done_ms = s.audio_done_ms,
        audio_ms = s.audio_ms, start_ms = s.start_ms, end_ms = s.end_ms }
    end
    for k, c in ipairs(chunks) do timed[k] = { t_ms = c.t_ms, text = c.text } end
    timeline = { spoken = spoken, chunks = timed }
  end
  return {
    ttft_ms = ttft,
    first_sentence_ms = first.ready_ms,
    tts_sent_ms = first.tts_sent_ms,
    first_audio_ms = info.first_audio_ms,
    first_voiced_ms = info.first_voiced_ms,
    tts_first_audio_ms = info.first_audio_ms - first.tts_sent_ms,
    audio_ms = audio_ms,
    underrun_ms = info.underrun_ms,
    underruns = info.underruns,
    speak_end_ms = info.speak_end_ms,
    overhead_ms = info.overhead_ms,
    sentences = #info.spoken,
    total_ms = total_ms,
  }
end)
local function col(name)
  local out = {}
  for i, r in ipairs(runs) do out[i] = r[name] end
  return out
end

local fa, fs = stats.median(col("first_audio_ms")), stats.median(col("first_sentence_ms"))
local result = {
  tts = tts,
  ["repeat"] = conf.REPEAT,
  runs = runs,
  ttft_p50 = stats.median(col("ttft_ms")),
  first_sentence_p50 = fs,
  first_audio_p50 = fa,
  tts_first_audio_p50 = stats.median(col("tts_first_audio_ms")),
  underrun_p50 = stats.median(col("underrun_ms")),
  -- The share of the wait for the first audio that the speech side adds
  -- (the agent's hand-off and the speech server's own time to first audio).
  tts_share = (fa - fs) / fa,
  spoken = timeline.spoken,
  chunks = timeline.chunks,
}
if #discarded > 0 then result.discarded = discarded end
write_json("audio.json", result)

local line = string.format("first audio p50 %.1f ms (first sentence %.1f ms, speech %.0f%% of the wait), underrun p50 %.0f ms, %s (%d runs%s)",
  fa, fs, 100 * result.tts_share, result.underrun_p50, tts.engine ~= "" and tts.engine or tts.url, #runs,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "")
print("audio: " .. line)
return line
