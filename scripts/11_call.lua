-- Step 11: the caller speaks, mouth to ear. Five questions (labconf.CALL),
-- each spoken (espeak-ng, or the turn's --caller-audio file) and sent to
-- the speech-to-text server as a phone line sends it, the LLM asked the
-- transcript, its answer spoken sentence by sentence (stream()'s stt and
-- tts options): from the moment the caller stops speaking to the answer's
-- first audio, and the parts that wait is made of, as the host computes
-- them (stream()'s info.turn). Every turn is a sample of the step's
-- figures, so the call is made as many times as give REPEAT turns
-- (--repeat, default 6): twice, ten turns, by default. The speech-to-text server is --stt, or the default engine
-- (pocketsphinx, a 2010s recognizer), which the lab starts for this step;
-- the speech server is --tts, or espeak-ng. A turn whose whole answer came
-- off the socket in one read cannot tell its first token from the end: it
-- is set aside with why and asked again.
local stats = require("stats")
local conf = dofile("labconf.lua")

local stt, no_stt = stt_info()
if stt == nil then
  return { skip = no_stt }
end
local tts, no_tts = tts_info()
if tts == nil then
  return { skip = no_tts }
end

-- copy is a table of the host's, as it gave it.
local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end

local set_aside = {}

-- ask is one turn: the question spoken, heard, asked and answered aloud;
-- its record, or nil and why it cannot time the LLM's answer.
local function ask(question, what)
  local chunks, total_ms, _, info = stream(conf.messages(conf.SYSTEM_ONE, question),
    { max_tokens = conf.CALL_MAX_TOKENS, stt = true, tts = true })
  local ttft = conf.need_ttft(info, what)
  conf.need_spoken(info, what)
  local one = conf.one_read(ttft, total_ms)
  if one then return nil, one end
  local t = info.turn
  if t.stamps.first_audio_ms == nil then
    error(string.format("%s: no audio came for an answer of %d chunks", what, #chunks))
  end
  if t.wer == nil then
    error(string.format("%s: the host does not know what was said (a --caller-audio file without its .txt), so no word error rate", what))
  end
  local text = {}
  for i, c in ipairs(chunks) do text[i] = c.text end
  return {
    said = t.said,
    transcript = t.transcript,
    wer = t.wer,
    stamps = copy(t.stamps),
    parts = copy(t.parts),
    stt = { api = t.stt.api, dialect = t.stt.dialect, rate = t.stt.rate, queue_ms = t.stt.queue_ms, audio_ms = t.stt.audio_ms },
    answer = table.concat(text),
  }
end

local calls = math.ceil(conf.REPEAT / #conf.CALL)
local runs, discarded = conf.repeated("call", function(rep)
  local turns = json_array()
  for k, question in ipairs(conf.CALL) do
    local what = string.format("call repetition %d, turn %d", rep, k)
    for try = 1, conf.MAX_TRIES + 1 do
      if try > conf.MAX_TRIES then
        error(string.format("%s: %d tries arrived whole in one socket read (ttft == total); the machine is too busy " ..
          "to time this server's first token", what, conf.MAX_TRIES))
      end
      local rec, why = ask(question, what)
      if rec then
        turns[k] = rec
        break
      end
      set_aside[#set_aside + 1] = { repetition = rep, turn = k, reason = why }
    end
  end
  return { turns = turns }
end, calls)
for _, d in ipairs(set_aside) do discarded[#discarded + 1] = d end

-- Every turn of every run.
local function over_turns(pick)
  local xs = {}
  for _, r in ipairs(runs) do
    for _, t in ipairs(r.turns) do xs[#xs + 1] = pick(t) end
  end
  return xs
end
local wer_max = 0
for _, w in ipairs(over_turns(function(t) return t.wer end)) do wer_max = math.max(wer_max, w) end

local questions = json_array()
for k, q in ipairs(conf.CALL) do questions[k] = q end
local result = {
  stt = stt,
  tts = tts,
  questions = questions,
  ["repeat"] = calls,
  runs = runs,
  mouth_to_ear_p50 = stats.median(over_turns(function(t) return t.parts.mouth_to_ear_ms end)),
  stt_final_p50 = stats.median(over_turns(function(t) return t.parts.stt_final_ms end)),
  wer_max = wer_max,
}
if #discarded > 0 then result.discarded = discarded end
write_json("call.json", result)

local line = string.format("mouth to ear p50 %.1f ms, final transcript p50 %.1f ms after the speech end, word error rate up to %.2f, %s (%d runs of %d turns%s)",
  result.mouth_to_ear_p50, result.stt_final_p50, wer_max, stt.engine ~= "" and stt.engine or stt.url, #runs, #conf.CALL,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "")
-- A garbled transcript is check's warning (its rule, turn.Garbled): the
-- summary says it too.
for _, o in ipairs(check_artifacts({ "call.json" })) do
  if o.status == "WARN" then line = line .. "; warning: " .. o.detail end
end
print("call: " .. line)
return line
