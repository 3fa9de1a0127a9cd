-- calls: voice calls on one server, many at once. A call is a caller
-- talking to the agent for several turns: turn k+1 sends the history, the
-- agent's answer to turn k and the caller's next line, after the caller
-- has thought and spoken (think_ms).
--
--   local calls = require("calls")
--   calls.run(opts) -> turns, summary
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
--   lines        the caller's lines: an array (turn k says lines[k],
--                round robin) or function(call, turn) -> text
--   opts         stream() options for every turn (default {max_tokens = 48})
--   warmup, progress, record, watch, duration_ms   as for stream_many;
--                every turn's tags are {call =, turn =}
--   on_turn      function(result) called as each turn ends
-- A turn that fails ends its call (the caller hangs up).
--
-- turns are stream_many's results, one per turn, with tags.call and
-- tags.turn. summary is stream_many's over all turns, plus by_turn: for
-- each turn number k, {turn = k, n =, ttft_ms =, first_sentence_ms =,
-- prompt_n =, cache_n =} (each a stats.summary), so a multi-slot server
-- shows whether every call keeps its cache across turns (cache_n grows and
-- prompt_n stays small), and calls, the number of calls that ran.

local options = require("options")
local prompt = require("prompt")
local stats = require("stats")

local M = {}

M.DEFAULT_LINES = {
  "Hi, I would like to book an appointment.",
  "Do you open on Saturday?",
  "What should I bring to my first visit?",
  "Can I park at the clinic?",
  "Thanks, that is all.",
}
M.DEFAULT_SYSTEM = "You are a clinic phone assistant. Answer in one or two short sentences."

local KNOWN = { "calls", "turns", "concurrency", "rate", "arrival", "seed", "think_ms", "system", "docs",
  "lines", "opts", "warmup", "progress", "record", "watch", "duration_ms", "on_turn" }

-- A small seeded generator (a linear congruential one), so think times and
-- arrivals repeat run after run whatever else uses math.random.
local function generator(seed)
  local state = seed % 2147483647
  if state <= 0 then state = state + 2147483646 end
  return function()
    state = (state * 16807) % 2147483647
    return (state - 1) / 2147483646
  end
end

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

-- think_ms of a call's pause before turn.
local function pause(c, rnd, call, turn)
  local t = c.think
  if type(t) == "number" then return t end
  if type(t) == "table" then return t[1] + rnd() * (t[2] - t[1]) end
  local ms = t(call, turn)
  if type(ms) ~= "number" or ms < 0 then
    error(string.format("calls.run: think_ms(%d, %d) returned %s, want ms >= 0", call, turn, tostring(ms)), 0)
  end
  return ms
end

local function line_of(o, call, turn)
  local lines = o.lines or M.DEFAULT_LINES
  if type(lines) == "function" then return lines(call, turn) end
  return lines[(turn - 1) % #lines + 1]
end

-- arrivals returns the start times of the calls of an open loop.
local function arrivals(c, o, rnd)
  local at, t = {}, 0
  for i = 1, c.calls do
    at[i] = t
    local gap = 1 / c.rate
    if o.arrival == "poisson" then gap = -math.log(1 - rnd()) / c.rate end
    t = t + gap * 1000
  end
  return at
end

local function text_of(chunks)
  local parts = {}
  for i, ch in ipairs(chunks) do parts[i] = ch.text end
  return table.concat(parts)
end

function M.run(opts)
  local c, o = check(opts)
  local rnd = generator(c.seed)
  local system = o.system or M.DEFAULT_SYSTEM
  if c.docs > 0 then system = prompt.build(system, kb_docs(), c.docs) end
  local start_at = c.rate and arrivals(c, o, rnd) or {}
  local state, active, next_call, finished = {}, 0, 1, 0

  -- available picks the call whose next turn can go first: a call waiting
  -- for its turn, else a new call when the loop has room for one.
  local function available()
    local best
    for _, s in pairs(state) do
      if not s.busy and not s.over and (best == nil or s.ready_at < best.ready_at) then best = s end
    end
    local can_open = next_call <= c.calls and (c.rate ~= nil or active < c.concurrency)
    local opens_at = start_at[next_call] or 0
    if can_open and (best == nil or opens_at < best.ready_at) then
      local s = { id = next_call, turn = 1, history = {}, ready_at = opens_at }
      state[next_call], next_call, active = s, next_call + 1, active + 1
      return s
    end
    return best
  end

  local function request()
    if finished == c.calls then return nil end
    local s = available()
    if not s then return false end
    s.busy = true
    local text = line_of(o, s.id, s.turn)
    s.pending = text
    local messages = { { role = "system", content = system } }
    for _, m in ipairs(s.history) do messages[#messages + 1] = m end
    messages[#messages + 1] = { role = "user", content = text }
    local ro = {}
    for k, v in pairs(o.opts or { max_tokens = 48 }) do ro[k] = v end
    ro.start_at_ms, ro.tags = s.ready_at, { call = s.id, turn = s.turn }
    return messages, ro
  end

  local function on_result(r)
    local s = state[r.tags.call]
    s.busy = false
    s.history[#s.history + 1] = { role = "user", content = s.pending }
    s.history[#s.history + 1] = { role = "assistant", content = text_of(r.chunks) }
    s.turn = s.turn + 1
    if r.error or s.turn > c.turns then
      s.over, active, finished = true, active - 1, finished + 1
      state[s.id] = nil
    else
      s.ready_at = r.start_ms + r.total_ms + pause(c, rnd, s.id, s.turn)
    end
    if o.on_turn then return o.on_turn(r) end
  end

  local many = { concurrency = 0, on_result = on_result, warmup = o.warmup, progress = o.progress,
    record = o.record, watch = o.watch, duration_ms = o.duration_ms }
  local turns, summary = stream_many(request, many)
  summary.calls = next_call - 1
  summary.by_turn = M.by_turn(turns, c.turns)
  return turns, summary
end

-- by_turn summarises the results of each turn number.
function M.by_turn(turns, n)
  local out = {}
  for k = 1, n do
    local cols = { ttft_ms = {}, first_sentence_ms = {}, prompt_n = {}, cache_n = {} }
    local count = 0
    for _, r in ipairs(turns) do
      if r.tags and r.tags.turn == k and not r.warmup and not r.error then
        count = count + 1
        cols.ttft_ms[#cols.ttft_ms + 1] = r.info.ttft_ms
        cols.first_sentence_ms[#cols.first_sentence_ms + 1] = r.first_sentence_ms
        if r.timings then
          cols.prompt_n[#cols.prompt_n + 1] = r.timings.prompt_n
          cols.cache_n[#cols.cache_n + 1] = r.timings.cache_n
        end
      end
    end
    local row = { turn = k, n = count }
    for name, xs in pairs(cols) do
      if #xs > 0 then row[name] = stats.summary(xs) end
    end
    out[k] = row
  end
  return out
end

return M
