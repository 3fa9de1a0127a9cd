-- speech: a streamed answer played back as a speaker would, so a voice
-- engineer sees whether the text keeps ahead of the voice.
--
--   local speech = require("speech")
--   speech.pacing(chunks, opts)          -> result
--   speech.first_clause_ms(chunks, opts) -> t_ms, clause | nil
--
-- chunks are stream()'s chunks: an array of {t_ms=, text=} in arrival
-- order (positional {t_ms, text} pairs work too).
--
-- pacing(chunks, opts): each sentence (the sentence module's rules) is
-- ready at the t_ms of the chunk that completed it; the last, unterminated
-- one at the last chunk. A sentence's audio exists tts_ms after it is
-- ready; it starts when its audio exists and the previous sentence has been
-- spoken, and takes its characters / chars_per_s seconds. opts (all
-- optional):
--   chars_per_s       speaking rate in UTF-8 characters per second (15)
--   tts_ms            text-to-speech latency per sentence (0)
--   min_clause_chars  for first_clause_ms (sentence.MIN_CLAUSE_CHARS, 20)
-- The result:
--   start_ms, end_ms    when speaking starts and ends (nil without text)
--   stall_ms, stalls    time the speaker waited for text after it started,
--                       and how many waits
--   speak_ms            time spent speaking
--   first_sentence_ms   when the first sentence was ready
--   first_clause_ms     when the first clause was ready (see below)
--   sentences           {text=, chars=, ready_ms=, start_ms=, end_ms=} each
--
-- first_clause_ms(chunks, opts): the t_ms of the chunk after which
-- sentence.first_clause(text so far, false, opts.min_clause_chars) is decided,
-- and that clause: an earlier, riskier moment to start speaking than the
-- first sentence (never later than it). When it is never decided, the
-- whole answer at the last chunk. nil for no chunks or no text.

local sentence = require("sentence")

local M = {}

local PACING_OPTS = { chars_per_s = true, tts_ms = true, min_clause_chars = true }

local function finite(x)
  return type(x) == "number" and x == x and x > -math.huge and x < math.huge
end

-- read_chunks checks chunks and returns their times and texts. It raises
-- at the line that called the public function fname.
local function read_chunks(chunks, fname)
  if type(chunks) ~= "table" then
    error(fname .. ": chunks must be an array of {t_ms=, text=}, got " .. type(chunks), 3)
  end
  local ts, texts = {}, {}
  for i = 1, #chunks do
    local c = chunks[i]
    if type(c) ~= "table" then
      error(string.format("%s: chunks[%d] is a %s, want a table {t_ms=, text=}", fname, i, type(c)), 3)
    end
    local t, s = c.t_ms, c.text
    if t == nil and s == nil then
      t, s = c[1], c[2]
    end
    if not finite(t) or type(s) ~= "string" then
      error(string.format("%s: chunks[%d] needs a finite number t_ms and a string text, got %s and %s",
        fname, i, tostring(t), type(s)), 3)
    end
    if i > 1 and t < ts[i - 1] then
      error(string.format("%s: chunks[%d].t_ms is %s, earlier than chunks[%d]'s %s; chunks must be in arrival order",
        fname, i, tostring(t), i - 1, tostring(ts[i - 1])), 3)
    end
    ts[i], texts[i] = t, s
  end
  return ts, texts
end

-- read_opts checks pacing's options and fills in the defaults.
local function read_opts(opts)
  if opts == nil then
    opts = {}
  elseif type(opts) ~= "table" then
    error("speech.pacing: opts must be a table, got " .. type(opts), 3)
  end
  for k in pairs(opts) do
    if not PACING_OPTS[k] then
      error("speech.pacing: unknown option " .. tostring(k) .. " (known: chars_per_s, tts_ms, min_clause_chars)", 3)
    end
  end
  local o = { chars_per_s = opts.chars_per_s or 15, tts_ms = opts.tts_ms or 0, min_clause_chars = opts.min_clause_chars }
  if not finite(o.chars_per_s) or o.chars_per_s <= 0 then
    error("speech.pacing: opts.chars_per_s must be a number > 0, got " .. tostring(o.chars_per_s), 3)
  end
  if not finite(o.tts_ms) or o.tts_ms < 0 then
    error("speech.pacing: opts.tts_ms must be a number >= 0, got " .. tostring(o.tts_ms), 3)
  end
  return o
end

local chars = sentence.chars

-- ready_sentences cuts the answer into sentences, each with the t_ms of
-- the chunk after which it was decided.
local function ready_sentences(ts, texts)
  local text, ends, len = table.concat(texts), {}, 0
  for i = 1, #texts do
    len = len + #texts[i]
    ends[i] = len
  end
  local out, pos, from = {}, 1, 1
  while true do
    local i, s, e = sentence.decided(text, ends, from, pos, function(rest) return sentence.first(rest, false) end)
    if not i then
      break
    end
    out[#out + 1] = { text = (s:gsub("^%s+", "")), ready_ms = ts[i] }
    pos, from = pos + e, i
  end
  for _, s in ipairs(sentence.split(text:sub(pos))) do
    out[#out + 1] = { text = s, ready_ms = ts[#ts] }
  end
  return out
end

-- schedule sets each sentence's start and end and sums up the waits.
local function schedule(list, o, result)
  local prev_end
  for _, s in ipairs(list) do
    s.chars = chars(s.text)
    local audio_ms = s.ready_ms + o.tts_ms
    s.start_ms = audio_ms
    if prev_end ~= nil then
      if audio_ms > prev_end then
        result.stall_ms = result.stall_ms + (audio_ms - prev_end)
        result.stalls = result.stalls + 1
      else
        s.start_ms = prev_end
      end
    end
    local speak = s.chars / o.chars_per_s * 1000
    s.end_ms = s.start_ms + speak
    result.speak_ms = result.speak_ms + speak
    prev_end = s.end_ms
  end
end

-- clause_time is first_clause_ms without the argument checks.
local function clause_time(ts, texts, min_chars)
  if #ts == 0 then
    return nil
  end
  local text, ends, len = table.concat(texts), {}, 0
  for i = 1, #texts do
    len = len + #texts[i]
    ends[i] = len
  end
  local i, c = sentence.decided(text, ends, 1, 1, function(s) return sentence.first_clause(s, false, min_chars) end)
  if i then
    return ts[i], c
  end
  local c = sentence.first_clause(text, true, min_chars)
  if not c then
    return nil
  end
  return ts[#ts], c
end

local function check_min_chars(fname, n)
  if n ~= nil and (type(n) ~= "number" or n < 0 or n ~= math.floor(n)) then
    error(fname .. ": the minimum clause length must be a whole number >= 0, got " .. tostring(n), 3)
  end
end

function M.pacing(chunks, opts)
  local ts, texts = read_chunks(chunks, "speech.pacing")
  local o = read_opts(opts)
  check_min_chars("speech.pacing", o.min_clause_chars)
  local list = ready_sentences(ts, texts)
  local result = { stall_ms = 0, stalls = 0, speak_ms = 0, sentences = list }
  schedule(list, o, result)
  if #list > 0 then
    result.start_ms = list[1].start_ms
    result.end_ms = list[#list].end_ms
    result.first_sentence_ms = list[1].ready_ms
  end
  result.first_clause_ms = clause_time(ts, texts, o.min_clause_chars)
  return result
end

function M.first_clause_ms(chunks, opts)
  local ts, texts = read_chunks(chunks, "speech.first_clause_ms")
  if opts ~= nil and type(opts) ~= "table" then
    error("speech.first_clause_ms: opts must be a table, got " .. type(opts), 2)
  end
  for k in pairs(opts or {}) do
    if k ~= "min_clause_chars" and k ~= "min_chars" then
      error("speech.first_clause_ms: unknown option " .. tostring(k) .. " (known: min_clause_chars)", 2)
    end
  end
  -- min_clause_chars, as speech.pacing names it; min_chars is its older name.
  local min_chars = opts and (opts.min_clause_chars or opts.min_chars)
  check_min_chars("speech.first_clause_ms", min_chars)
  return clause_time(ts, texts, min_chars)
end

return M
