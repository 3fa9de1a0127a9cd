-- Step 12: a speech-to-speech session, mouth to ear and barge-in, over the
-- Realtime WebSocket API: only with --realtime URL (skipped without it).
-- REALTIME_SESSIONS sessions (labconf, 2) of the same three turns, each
-- turn spoken by espeak-ng and sent as a phone line sends it, silence
-- between the turns; the server's voice-activity detection says when the
-- caller stopped and the server answers on its own. The third turn barges
-- into the second's answer 300 ms after its first audio: the client
-- cancels at the server's speech_started and counts the audio that still
-- came. Every turn's stamps and figures are session()'s, as the host
-- measured them (internal/realtime); realtime.json holds them, the medians
-- are printed, and runs.json's figures take every turn.
local stats = require("stats")
local conf = dofile("labconf.lua")

local server, none = realtime_info()
if server == nil then
  return { skip = none }
end

local function ms(v)
  if v == nil then return "-" end
  return string.format("%.1f", v)
end

-- record is a turn of session()'s as realtime.json holds it: its
-- figures null where the turn never reached them, its events an array.
local function record(t)
  local r = {}
  for k, v in pairs(t) do r[k] = v end
  r.t0_ms = nil
  for _, name in ipairs(conf.REALTIME_NULLABLE) do
    if r[name] == nil then r[name] = json_null end
  end
  if t.events then
    local events = json_array()
    for i, e in ipairs(t.events) do events[i] = e end
    r.events = events
  end
  return r
end

local plan = json_array()
for k, t in ipairs(conf.REALTIME_TURNS) do plan[k] = { say = t.say, barge_after_ms = t.barge_after_ms } end

local sessions = json_array()
local dialect, rate
local failed
local m2e, after = {}, {}
for s = 1, conf.REALTIME_SESSIONS do
  take_turn("realtime")
  local turns = {}
  for k, t in ipairs(conf.REALTIME_TURNS) do turns[k] = { say = t.say, barge_after_ms = t.barge_after_ms } end
  local r = session(nil, { turns = turns, events = true, errors = "return", instructions = conf.SYSTEM_ONE })
  dialect, rate = dialect or r.dialect, rate or r.rate
  local kept = json_array()
  for k, t in ipairs(r.turns) do
    kept[k] = record(t)
    if t.mouth_to_ear_ms then m2e[#m2e + 1] = t.mouth_to_ear_ms end
    if t.audio_after_cancel_ms then after[#after + 1] = t.audio_after_cancel_ms end
    local barge = ""
    if t.cancel_ms then
      barge = string.format("; barged into at %s ms, cancel %s ms on %s, %s ms played, %s ms of audio after the cancel",
        ms(t.barge_onset_ms), ms(t.cancel_ms), tostring(t.cancel_on), ms(t.played_ms), ms(t.audio_after_cancel_ms))
    end
    print(string.format("realtime session %d turn %d: mouth to ear %s ms (speech end %s, speech stopped %s, first audio %s), %s ms of answer, %s%s",
      s, t.turn, ms(t.mouth_to_ear_ms), ms(t.speech_end_ms), ms(t.speech_stopped_ms), ms(t.first_audio_ms),
      ms(t.answer_audio_ms), tostring(t.status or "no status"), barge))
  end
  sessions[s] = { turns = kept, error_kind = r.error_kind or json_null, error = r.error or json_null }
  if r.error and not failed then
    failed = string.format("realtime session %d of %d: %s (%s), after %d turns", s, conf.REALTIME_SESSIONS, r.error, r.error_kind, #r.turns)
  end
end
write_json("realtime.json", { step = "realtime", server = server.url, dialect = dialect or "", rate = rate or 0,
  plan = plan, sessions = sessions })
if failed then error(failed) end

local line = string.format("mouth to ear p50 %s ms over %d turns, audio after the cancel p50 %s ms over %d barge-ins, %s (%s)",
  #m2e > 0 and ms(stats.median(m2e)) or "-", #m2e, #after > 0 and ms(stats.median(after)) or "-", #after,
  server.url, tostring(dialect))
-- A server that kept sending after the cancel is check's warning: the
-- summary says it too.
for _, o in ipairs(check_artifacts({ "realtime.json" })) do
  if o.status == "WARN" then line = line .. "; warning: " .. o.detail end
end
print("realtime: " .. line)
return line
