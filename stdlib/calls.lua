-- calls: voice calls on one server, many at once. A call is a caller
-- talking to the agent for several turns: turn k+1 sends the history, the
-- agent's answer to turn k and the caller's next line, after the caller
-- has thought and spoken (think_ms). stream_many's plan (Go) decides
-- which call's which turn is due when; this module only says what each
-- turn sends.
--
--   local calls = require("calls")
--   calls.run(opts) -> turns, summary
--   calls.builder(o) -> request, on_result   (the load's experiment)
--
-- opts (all optional but one of concurrency and rate):
--   calls        how many calls (default 8)
--   turns        user turns per call (default 3)
--   concurrency  calls at once: a closed loop (a new call starts when one
--                hangs up)
--   rate         calls arriving per second: an open loop, with
--   arrival      "constant" (default) or "poisson", and
--   seed         for the Poisson arrivals and the think times (default 7)
--   think_ms     the caller's pause before each next turn: a number, a
--                range {min, max} (uniform) or function(call, turn) -> ms
--                (default 2000)
--   system       the system prompt (default: a clinic phone assistant)
--   docs         add the first n knowledge-base documents to it (0)
--   lines        the caller's lines: an array or function(call, turn) ->
--                text. From an array each call starts at its own line,
--                chosen by stream_many's seeded draw for the call (the
--                plan's, from seed: no random source of Lua's), and says
--                the lines after it round robin: callers differ, so a
--                call's first turn is a cold prompt as a real caller's
--                is, and the same seed gives the same lines. Default
--                M.DEFAULT_LINES, the first said after "Hi, this is NAME."
--                with a name of M.DEFAULT_NAMES the same draw picks: five
--                lines alone would repeat from the sixth caller on, and a
--                caller who repeats an earlier one's first line finds it in
--                the server's cache
--   opts         stream() options for every turn (default {max_tokens = 48})
--   warmup, warmup_ms, progress, record, watch, duration_ms, tts, shard, start_at_ms,
--   over_saturation
--                as for stream_many;
--                every turn's tags are {call =, turn =}
--   on_turn      function(result) called as each turn ends
-- A turn that fails ends its call (the caller hangs up).
--
-- In ttftlab load, builder's request also takes the calls that start in
-- steady state (--steady-start: turn > 1, no previous result), whose
-- earlier turns are put in the history unrun, each of its lines answered
-- by the fixed line M.HISTORY_ANSWER; and a replayed trace's line of
-- each turn (--trace; see builder below).
--
-- turns are stream_many's results, one per turn, with tags.call and
-- tags.turn. summary is stream_many's over all turns, whose by_turn
-- (each turn number's figures) shows on a multi-slot server whether every
-- call keeps its cache across turns (cache_n grows and prompt_n stays
-- small), and calls the number of calls that ran.

local options = require("options")
local prompt = require("prompt")

local M = {}

-- HISTORY_ANSWER is the agent's answer to each turn a call that starts in
-- steady state holds as history without having run it (stream_many's
-- plan with load --steady-start: turn > 1 and no previous result).
M.HISTORY_ANSWER = "Of course, I can help with that."
-- WORDS are the words a replayed line that gives only its length
-- (line.input_tokens, no text) says, round robin: common words of about
-- one token each.
M.WORDS = { "please", "can", "you", "tell", "me", "about", "the", "clinic", "and", "when", "it", "is", "open", "for",
  "a", "visit" }

M.DEFAULT_LINES = {
  "Hi, I would like to book an appointment.",
  "Do you open on Saturday?",
  "What should I bring to my first visit?",
  "Can I park at the clinic?",
  "Thanks, that is all.",
}
M.DEFAULT_NAMES = {
  "Ana", "Ben", "Chloe", "David", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kai", "Lena",
  "Marco", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tomoko", "Uma", "Victor", "Wen", "Yusuf",
}
M.DEFAULT_SYSTEM = "You are a clinic phone assistant. Answer in one or two short sentences."

local KNOWN = { "calls", "turns", "concurrency", "rate", "arrival", "seed", "think_ms", "system", "docs",
  "lines", "opts", "warmup", "warmup_ms", "progress", "record", "watch", "duration_ms", "on_turn", "tts", "shard",
  "start_at_ms", "over_saturation" }

local function check(o)
  o = options.check("calls.run", o, KNOWN)
  local function whole(name, min, default)
    local v = o[name]
    if v == nil then return default end
    if type(v) ~= "number" or v ~= math.floor(v) or v < min then
      error(string.format("calls.run: opts.%s must be a whole number of at least %d, got %s", name, min, tostring(v)), 4)
    end
    return v
  end
  local c = {
    calls = whole("calls", 1, 8), turns = whole("turns", 1, 3), docs = whole("docs", 0, 0),
    seed = whole("seed", 0, 7), concurrency = o.concurrency, rate = o.rate,
  }
  if c.concurrency ~= nil and c.rate ~= nil then
    error("calls.run: give opts.concurrency (calls at once) or opts.rate (calls per second), not both", 3)
  end
  if c.rate == nil then c.concurrency = whole("concurrency", 1, 1) end
  local think = o.think_ms == nil and 2000 or o.think_ms
  local tt = type(think)
  if not (tt == "number" and think >= 0 or tt == "function" or
      tt == "table" and type(think[1]) == "number" and type(think[2]) == "number" and think[1] <= think[2]) then
    error("calls.run: opts.think_ms must be a number of ms, a range {min, max} or a function(call, turn)", 3)
  end
  c.think = think
  return c, o
end

-- first_line is the line (1..n) a call with stream_many's draw u in
-- [0, 1) starts at.
function M.first_line(u, n)
  return math.min(math.floor(u * n), n - 1) + 1
end

-- name_of is the caller's name for the default lines: the draw's
-- remainder once the line is picked, itself uniform in [0, 1), picks it.
function M.name_of(u, n_lines)
  local rest = u * n_lines - (M.first_line(u, n_lines) - 1)
  return M.DEFAULT_NAMES[M.first_line(math.max(0, math.min(rest, 1)), #M.DEFAULT_NAMES)]
end

local function line_of(o, call, turn, u)
  local lines = o.lines or M.DEFAULT_LINES
  if type(lines) == "function" then return lines(call, turn) end
  local line = lines[(M.first_line(u, #lines) - 1 + turn - 1) % #lines + 1]
  if o.lines == nil and turn == 1 then
    line = "Hi, this is " .. M.name_of(u, #lines) .. ". " .. line
  end
  return line
end

local function text_of(chunks)
  local parts = {}
  for i, ch in ipairs(chunks) do parts[i] = ch.text end
  return table.concat(parts)
end

-- words_of is n words of M.WORDS, round robin.
local function words_of(n)
  local words = {}
  for k = 1, n do words[k] = M.WORDS[(k - 1) % #M.WORDS + 1] end
  return table.concat(words, " ")
end

-- replayed is what a trace's line (load --trace) says the caller says:
-- its text, else as many words as its input_tokens.
local function replayed(line)
  if line.text then return line.text end
  return words_of(line.input_tokens or 1)
end

-- builder(o) -> request, on_result: what each turn of a call sends,
-- for stream_many (the load's experiment returns these). o: system (the
-- whole system prompt, documents included), lines, opts (each turn's
-- stream() options, default {max_tokens = 48}) and turns (a call's last
-- turn, when its caller hangs up). request(i, call, turn, previous, u,
-- line) builds a turn's messages when stream_many's plan makes it due:
-- the system prompt, the call's history (its earlier lines, or what the
-- LLM was asked of them when the caller spoke them: previous.transcript,
-- and the answers to them) and the caller's next line, with tags {call =,
-- turn =}. A call that starts in steady state (turn > 1 with no previous
-- result: load --steady-start) holds its turns 1 .. turn - 1 as history,
-- its lines each answered by M.HISTORY_ANSWER.
-- line is a replayed trace's line of the turn (load --trace; nil
-- otherwise): a Mooncake line's token ids (line.prompt) are sent alone on
-- the completions API, {api = "completions", body = {prompt = ids,
-- ignore_eos = true}}, with no messages; otherwise the caller says
-- line.text (or line.input_tokens words of M.WORDS). line.output_tokens,
-- when given, is max_tokens; line.turns the call's last turn.
-- on_result(r) forgets a call whose caller hung up.
function M.builder(o)
  local system = o.system or M.DEFAULT_SYSTEM
  local said = {} -- per call in progress: the history, the line of the turn running, the call's turns
  local function options_of(call, turn, line)
    local ro = {}
    for k, v in pairs(o.opts or { max_tokens = 48 }) do ro[k] = v end
    ro.tags = { call = call, turn = turn }
    if line and line.output_tokens then ro.max_tokens = line.output_tokens end
    return ro
  end
  local function request(_, call, turn, previous, u, line)
    if line and line.prompt then
      local ro = options_of(call, turn, line)
      local body = {}
      for k, v in pairs(ro.body or {}) do body[k] = v end
      body.prompt, body.ignore_eos = line.prompt, true
      ro.api, ro.body = "completions", body
      return {}, ro
    end
    local s = said[call]
    if s == nil then
      s = { history = {}, turns = line and line.turns or o.turns }
      said[call] = s
      if not previous then
        for k = 1, turn - 1 do -- a call that starts in steady state
          s.history[#s.history + 1] = { role = "user", content = line_of(o, call, k, u) }
          s.history[#s.history + 1] = { role = "assistant", content = M.HISTORY_ANSWER }
        end
      end
    end
    if previous then
      s.history[#s.history + 1] = { role = "user", content = previous.transcript or s.line }
      s.history[#s.history + 1] = { role = "assistant", content = text_of(previous.chunks) }
    end
    s.line = line and replayed(line) or line_of(o, call, turn, u)
    local messages = { { role = "system", content = system } }
    for _, m in ipairs(s.history) do messages[#messages + 1] = m end
    messages[#messages + 1] = { role = "user", content = s.line }
    return messages, options_of(call, turn, line)
  end
  local function on_result(r)
    local s = said[r.tags.call]
    if r.error or s and r.tags.turn == s.turns then said[r.tags.call] = nil end -- the caller hung up
  end
  return request, on_result
end

function M.run(opts)
  local c, o = check(opts)
  local system = o.system or M.DEFAULT_SYSTEM
  if c.docs > 0 then system = prompt.build(system, kb_docs(), c.docs) end
  local request, hung_up = M.builder({ system = system, lines = o.lines, opts = o.opts, turns = c.turns })

  local function on_result(r)
    hung_up(r)
    if o.on_turn then return o.on_turn(r) end
  end

  local many = { calls = c.calls, turns = c.turns, think_ms = c.think, concurrency = c.concurrency, rate = c.rate,
    arrival = o.arrival, seed = c.seed, on_result = on_result, warmup = o.warmup, warmup_ms = o.warmup_ms, progress = o.progress,
    record = o.record, watch = o.watch, duration_ms = o.duration_ms, tts = o.tts, shard = o.shard, start_at_ms = o.start_at_ms,
    over_saturation = o.over_saturation }
  return stream_many(request, many)
end

return M
