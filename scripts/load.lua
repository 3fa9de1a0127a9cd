-- The load's experiment: what each call of `ttftlab load` says.
--   ttftlab load [flags]   (see docs/load.md)
-- The engine (Go) runs the levels, the schedule, the records, the
-- verdicts, the console and load.json; this script only builds the
-- requests. Edit it in the working tree (scripts/load.lua): ttftlab
-- uses that copy instead of its own, without recompiling.
--
-- It returns experiment(run), called at the start of each round of each
-- level (and once before a server starts, round 0, to check it) with
-- run = {level =, round =, calls =, turns =, docs =, max_tokens =,
-- seed =, mode =} (the flags), which returns the round's request builder
-- and, optionally, on_result:
--   request(i, call, turn, previous, draw, line) -> messages, opts
--     the i-th request, turn `turn` of call `call`, due now; previous is
--     the result of the call's turn before (nil for its first; nil too
--     for a call that starts in steady state, --steady-start, at a turn
--     above 1: its earlier turns go in the history unrun), draw the
--     call's own seeded number in [0, 1), line the trace's line of the
--     turn when the load replays one (--trace; nil otherwise: call_id,
--     line, text, input_tokens, output_tokens, prompt, speak_ms,
--     pause_ms, audio, turns; docs/lua-api.md). opts are stream()'s,
--     with tags {call =, turn =} for the rows. calls.builder does all
--     this (stdlib/README.md, calls).
--   on_result(result)   as each request ends
local calls = require("calls")
local prompt = require("prompt")

-- The system prompt every call starts with; --docs adds that many of the
-- knowledge base's documents after it (--kb, or the bundled one).
local SYSTEM = "You are a clinic phone assistant. Answer in one or two short sentences."

-- The caller's lines: nil says calls.DEFAULT_LINES, each call starting at
-- its own line after "Hi, this is NAME." (docs/lua-api.md, calls); an
-- array of strings, or function(call, turn) -> text, says others.
local LINES = nil

return function(run)
  local docs = run.docs > 0 and kb_docs() or {}
  if #docs < run.docs then
    error(string.format("load: --docs %d, but the KB has %d documents", run.docs, #docs))
  end
  return calls.builder({
    system = prompt.build(SYSTEM, docs, run.docs),
    lines = LINES,
    opts = { max_tokens = run.max_tokens },
    turns = run.turns,
  })
end
