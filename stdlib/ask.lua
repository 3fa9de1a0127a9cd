-- ask: one question to the server, the answer printed as it arrives with
-- the time each sentence completed, then a one-line summary. It is the
-- common loop of prompt tuning: change the system prompt, the number of KB
-- docs or the cache setting, ask again, compare.
--
--   local ask = require("ask")
--   ask(question, opts)           -> chunks, total_ms, timings, info
--   ask.messages(question, opts)  -> the messages ask would send
--   ask.summary(chunks, total_ms, timings, info, opts) -> string
--   ask.flush([{server =}])       -> empties the server's prompt cache
--   ask.ab(question, opts_a, opts_b, ab_opts) -> ab()'s result: is B faster?
--
-- ask(question, opts) sends question as the user message through stream()
-- and returns what stream() returns. opts (all optional):
--   system  string   the system prompt (none when nil)
--   docs    number   append the first n knowledge-base documents (kb_docs())
--                    to the system prompt, as prompt.build does
--   tail    string   text after the docs, at the very end of the system
--                    prompt: where a line that changes every call (the
--                    time, the caller's name) costs the cache least
--   cache   boolean  the server may reuse its prompt cache (stream's
--                    cache_prompt; default true)
--   quiet   boolean  print nothing, at the prompt too
--   any other field is a stream() option (max_tokens, body, server, ...);
--   an on_chunk of your own is called after ask has printed the chunk. A
--   name that is neither ask's nor stream()'s is an error that suggests the
--   nearest one.
--
-- The system prompt is system, the docs, then tail, each after a blank line.
-- llama-server keeps only the last prompt of each slot in its cache, so when
-- comparing variants A and B, B finds A's prefix cached: call ask.flush()
-- between them for cold numbers, or repeat each for warm ones.
--
-- ask.ab(question, opts_a, opts_b, ab_opts) asks question with opts_a (A)
-- and opts_b (B), quietly, ab_opts.runs times each (default 6) in ABBA
-- order through the host's ab(), flushing the prompt cache before every
-- run unless ab_opts.flush is false, and returns ab()'s result: per figure
-- (ttft_ms, first_sentence_ms, total_ms) B/A of the median with its 95 %
-- interval and a verdict. At the prompt it shows as the verdict table;
-- in a script, print it. ab_opts are ab()'s options (runs, seed, reps,
-- flush, on_run, quiet).
--
-- While the answer streams, each sentence is printed on a line of its own
-- followed by "[t ms]": when the chunk that completed it arrived, counted
-- from t0 like every stream time. The last, unterminated sentence is
-- marked with the arrival of the last chunk. Then comes the summary line.
-- info gains: text (the whole answer), sentences ({text=, t_ms=} in order),
-- first_sentence, first_sentence_ms, printed (true unless quiet: the
-- answer and summary are already on screen) and quiet.
--
-- summary(chunks, total_ms, timings, info, opts): a readable account of a
-- stream() result, one line per item:
--   answer: "..."                      the text, cut after opts.max_text
--                                      bytes (default 300)
--   first sentence at 41.2 ms: "..."
--   ttft 12.1 ms | first sentence 41.2 ms | total 456.3 ms |
--   spoken without stalls | tokens 64 | prompt_n 312 | cache_n 0 |
--   finish stop                        (all on one line; "spoken with 2
--                                      stalls (340.0 ms)" when a speaker
--                                      at 15 characters a second would
--                                      have waited for text: speech.pacing)
--   heard "..." | wer 0.12 | stt final 310.2 ms | endpointing 120.0 ms |
--   mouth to ear 812.4 ms               only with opts.stt (info.turn): the
--                                      transcript the LLM was asked and
--                                      the turn's figures
--   error: ...                         only when info.error is set
-- opts.text = false leaves out the first two lines. A stream that did not
-- finish has a first sentence only if one was complete before it ended.
-- tokens is the server's predicted_n, or "chunks N" when the server sent
-- no timings; a cut stream adds "cut at T ms".

local sentence = require("sentence")
local prompt = require("prompt")
local options = require("options")
local speech = require("speech")

local M = {}

-- Options ask handles itself; the others go to stream(), whose options
-- are STREAM_OPTIONS (a test holds this list to the host's own). It is
-- not a field of the module: the prompt offers a module's fields to
-- complete, and this list is not for calling.
local OWN_NAMES = { "system", "docs", "tail", "cache", "quiet", "on_chunk" }
local STREAM_OPTIONS = { "api", "body", "cache_prompt", "clause", "cut_after_ms", "errors", "headers", "idle_timeout_ms",
  "keep_chunks", "keep_reads", "max_tokens", "min_clause_chars", "on_chunk", "path", "raw_out", "seed", "server",
  "stt", "temperature", "timeout_ms", "tts" }
local OWN, KNOWN, ALL = {}, {}, {}
for _, n in ipairs(OWN_NAMES) do OWN[n] = true end
for _, list in ipairs({ OWN_NAMES, STREAM_OPTIONS }) do
  for _, n in ipairs(list) do
    if not KNOWN[n] then KNOWN[n] = true; ALL[#ALL + 1] = n end
  end
end

-- check_names refuses an option neither ask nor stream() knows, listing
-- ask's own and asking "did you mean" for a near miss.
local function check_names(opts)
  for k in pairs(opts) do
    if type(k) ~= "string" or not KNOWN[k] then
      local near = type(k) == "string" and options.suggest(k, ALL) or nil
      local own = {}
      for i, n in ipairs(OWN_NAMES) do own[i] = n end
      table.sort(own)
      error(string.format("ask: unknown option %s%s; ask's own are %s, and it passes every stream() option on (:help stream)",
        type(k) == "string" and string.format("%q", k) or tostring(k),
        near and string.format(" (did you mean %q?)", near) or "", table.concat(own, ", ")), 4)
    end
  end
end

local function check_opts(opts)
  if opts == nil then
    return {}
  end
  if type(opts) ~= "table" then
    error("ask: opts must be a table, got " .. type(opts), 3)
  end
  check_names(opts)
  if opts.system ~= nil and type(opts.system) ~= "string" then
    error("ask: opts.system must be a string, got " .. type(opts.system), 3)
  end
  if opts.tail ~= nil and type(opts.tail) ~= "string" then
    error("ask: opts.tail must be a string, got " .. type(opts.tail), 3)
  end
  local docs = opts.docs
  if docs ~= nil and (type(docs) ~= "number" or docs < 0 or docs ~= math.floor(docs)) then
    error("ask: opts.docs must be a whole number >= 0 (how many KB docs to add), got " .. tostring(docs), 3)
  end
  if opts.cache ~= nil and type(opts.cache) ~= "boolean" then
    error("ask: opts.cache must be a boolean, got " .. type(opts.cache), 3)
  end
  if opts.cache ~= nil and opts.cache_prompt ~= nil then
    error("ask: give opts.cache or opts.cache_prompt, not both", 3)
  end
  if opts.on_chunk ~= nil and type(opts.on_chunk) ~= "function" then
    error("ask: opts.on_chunk must be a function, got " .. type(opts.on_chunk), 3)
  end
  return opts
end

-- build_messages is ask.messages without the argument checks: system,
-- then the docs, then tail, each after a blank line.
local function build_messages(question, opts)
  local system = opts.system
  if opts.docs ~= nil and opts.docs > 0 then
    system = prompt.build(system or "", kb_docs(), opts.docs):gsub("^%s+", "")
  end
  if opts.tail ~= nil and opts.tail ~= "" then
    system = (system and system ~= "") and (system .. "\n\n" .. opts.tail) or opts.tail
  end
  local messages = {}
  if system ~= nil and system ~= "" then
    messages[1] = { role = "system", content = system }
  end
  messages[#messages + 1] = { role = "user", content = question }
  return messages
end

function M.messages(question, opts)
  if type(question) ~= "string" then
    error("ask.messages: question must be a string, got " .. type(question), 2)
  end
  return build_messages(question, check_opts(opts))
end

-- A view follows the answer as it streams: it finds each sentence end and
-- prints the text one sentence per line, each with its time. pending is
-- the text after the last finished sentence, shown how many of its bytes
-- are on screen already.
local function new_view(write)
  return {
    write = write,
    pending = "",
    shown = 0,
    line_start = true,
    texts = {},
    sentences = {},
    last_t = nil,
  }
end

-- show prints pending up to byte upto; white space that would start a line
-- is skipped, as sentences start lines of their own.
local function show(v, upto)
  if upto <= v.shown then
    return
  end
  local part = v.pending:sub(v.shown + 1, upto)
  v.shown = upto
  if v.line_start then
    part = part:gsub("^%s+", "")
  end
  if part ~= "" then
    v.write(part)
    v.line_start = false
  end
end

-- finish_sentence records a sentence ending at byte e of pending, marks it
-- on screen and drops it (and the white space after it) from pending.
local function finish_sentence(v, text, e, t_ms)
  show(v, e)
  v.write(string.format("  [%.1f ms]\n", t_ms))
  v.line_start = true
  v.sentences[#v.sentences + 1] = { text = (text:gsub("^%s+", "")), t_ms = t_ms }
  local rest = v.pending:sub(e + 1)
  local lead = #rest:match("^%s*")
  v.pending = rest:sub(lead + 1)
  v.shown = math.max(0, v.shown - e - lead)
end

local function feed(v, text, t_ms)
  v.texts[#v.texts + 1] = text
  v.last_t = t_ms
  v.pending = v.pending .. text
  while true do
    local s, e = sentence.first(v.pending, false)
    if not s then
      break
    end
    finish_sentence(v, s, e, t_ms)
  end
  show(v, #v.pending)
end

-- finish ends the view: the last sentence, unterminated, counts as complete
-- when the last chunk arrived.
local function finish(v)
  local s, e = sentence.first(v.pending, true)
  if s then
    finish_sentence(v, s, e, v.last_t)
  elseif not v.line_start then
    v.write("\n")
    v.line_start = true
  end
end

local function ask(question, opts)
  if type(question) ~= "string" then
    error("ask: question must be a string, got " .. type(question), 2)
  end
  opts = check_opts(opts)
  local quiet = opts.quiet == true
  local write = io.write
  if quiet then
    write = function() end
  end
  local sopts = {}
  for k, v in pairs(opts) do
    if not OWN[k] then
      sopts[k] = v
    end
  end
  if opts.cache ~= nil then
    sopts.cache_prompt = opts.cache
  end
  local view = new_view(write)
  local own = opts.on_chunk
  sopts.on_chunk = function(c)
    feed(view, c.text, c.t_ms)
    if own then
      return own(c)
    end
  end
  -- stream() is called from a Lua function, not by pcall itself, so its
  -- failure carries a position, which the host moves to the line that
  -- called ask.
  local ok, chunks, total_ms, timings, info = pcall(function()
    return stream(build_messages(question, opts), sopts)
  end)
  if not ok then
    -- Finish the line so the error starts on a line of its own.
    if not view.line_start then
      write("\n")
    end
    error(chunks, 0)
  end
  finish(view)
  info.text = table.concat(view.texts)
  info.sentences = view.sentences
  if view.sentences[1] then
    info.first_sentence = view.sentences[1].text
    info.first_sentence_ms = view.sentences[1].t_ms
  end
  info.printed = not quiet
  info.quiet = quiet
  if not quiet then
    write(M.summary(chunks, total_ms, timings, info, { text = false }) .. "\n")
  end
  return chunks, total_ms, timings, info
end

M.ask = ask

-- flush empties the server's prompt cache for the next request: llama-server
-- keeps the last prompt of each slot, so the second of two variants finds
-- the first one's prefix cached. A tiny unrelated prompt takes its place.
function M.flush(opts)
  opts = options.check("ask.flush", opts, { "server" })
  stream(".", { max_tokens = 1, cache_prompt = false, server = opts.server })
end

-- ab compares two ask variants of one question with the host's ab():
-- ABBA order, every run cold unless ab_opts.flush is false.
function M.ab(question, opts_a, opts_b, ab_opts)
  if type(question) ~= "string" then
    error("ask.ab: question must be a string, got " .. type(question), 2)
  end
  local variants = {}
  for i, o in ipairs({ opts_a or {}, opts_b or {} }) do
    if type(o) ~= "table" then
      error(string.format("ask.ab: opts_%s must be a table, got %s", i == 1 and "a" or "b", type(o)), 2)
    end
    local copy = {}
    for k, v in pairs(o) do copy[k] = v end
    copy.quiet = true
    check_opts(copy)
    variants[i] = copy
  end
  if ab_opts ~= nil and type(ab_opts) ~= "table" then
    error("ask.ab: ab_opts must be a table, got " .. type(ab_opts), 2)
  end
  local opts = {}
  for k, v in pairs(ab_opts or {}) do opts[k] = v end
  if opts.flush == nil then
    -- Flush every server the variants ask, once each.
    local servers, seen = {}, {}
    for _, o in ipairs(variants) do
      local key = o.server or ""
      if not seen[key] then
        seen[key] = true
        servers[#servers + 1] = key
      end
    end
    opts.flush = function()
      for _, key in ipairs(servers) do
        M.flush({ server = key ~= "" and key or nil })
      end
    end
  end
  return ab(function() return ask(question, variants[1]) end,
    function() return ask(question, variants[2]) end, opts)
end

-- ms formats a time, "-" when there is none.
local function ms(t)
  if type(t) ~= "number" then
    return "-"
  end
  return string.format("%.1f ms", t)
end

-- quote is %q on one line: Lua 5.1's %q keeps a newline as a backslash
-- and a real newline.
local function quote(s)
  return (string.format("%q", s):gsub("\\\n", "\\n"))
end

-- clip cuts s after max bytes, on a character boundary, saying how much
-- was left out.
local function clip(s, max)
  if #s <= max then
    return quote(s)
  end
  local cut = max
  while cut > 0 and s:byte(cut + 1) and s:byte(cut + 1) >= 0x80 and s:byte(cut + 1) < 0xC0 do
    cut = cut - 1
  end
  return string.format("%s (+%d more bytes)", quote(s:sub(1, cut)), #s - cut)
end

local function text_of(chunks, info)
  if type(info.text) == "string" then
    return info.text
  end
  local parts = {}
  for i, c in ipairs(chunks) do
    parts[i] = c.text
  end
  return table.concat(parts)
end

-- first_sentence_of: a stream that did not finish (cut, failed) has a
-- first sentence only when one was complete before it ended.
local function first_sentence_of(chunks, info)
  if info.first_sentence_ms ~= nil then
    return info.first_sentence, info.first_sentence_ms
  end
  if not info.done and not sentence.first(text_of(chunks, info), false) then
    return nil
  end
  return sentence.first_time(chunks)
end

-- spoken says whether a speaker reading the answer at 15 characters a
-- second would have waited for text: "spoken without stalls", "spoken with
-- 2 stalls (340.0 ms)".
local function spoken(chunks)
  local ok, p = pcall(speech.pacing, chunks)
  if not ok or p.start_ms == nil then
    return nil
  end
  if p.stalls == 0 then
    return "spoken without stalls"
  end
  return string.format("spoken with %d stall%s (%s)", p.stalls, p.stalls == 1 and "" or "s", ms(p.stall_ms))
end

-- metrics is the summary's one-line account of the timings.
local function metrics(chunks, total_ms, timings, info, first_ms)
  local parts = {
    "ttft " .. ms(info.ttft_ms),
    "first sentence " .. ms(first_ms),
    "total " .. ms(total_ms),
  }
  parts[#parts + 1] = spoken(chunks)
  if type(timings) == "table" then
    parts[#parts + 1] = "tokens " .. tostring(timings.predicted_n or "-")
    parts[#parts + 1] = "prompt_n " .. tostring(timings.prompt_n or "-")
    parts[#parts + 1] = "cache_n " .. tostring(timings.cache_n or "-")
  else
    parts[#parts + 1] = "chunks " .. #chunks
  end
  if info.cut then
    parts[#parts + 1] = "cut at " .. ms(info.closed_at_ms)
  elseif info.finish_reason then
    parts[#parts + 1] = "finish " .. info.finish_reason
  elseif not info.done then
    parts[#parts + 1] = "incomplete"
  end
  return table.concat(parts, " | ")
end

-- audio_line is the speech of an answer asked with opts.tts (the voice
-- module): when the caller first hears it, and the silences in between.
local function audio_line(info)
  local parts = {}
  if info.first_audio_ms ~= nil then
    parts[#parts + 1] = "first audio " .. ms(info.first_audio_ms)
  else
    parts[#parts + 1] = "no audio"
  end
  if info.underruns ~= nil then
    if info.underruns == 0 then
      parts[#parts + 1] = "heard without gaps"
    else
      parts[#parts + 1] = string.format("%d gap%s (%s)", info.underruns, info.underruns == 1 and "" or "s", ms(info.underrun_ms))
    end
  end
  parts[#parts + 1] = string.format("%d sentence%s spoken", #info.spoken, #info.spoken == 1 and "" or "s")
  if info.tts_errors ~= nil and info.tts_errors > 0 then
    parts[#parts + 1] = info.tts_errors .. " speech requests failed"
  end
  return table.concat(parts, " | ")
end

-- turn_line is the caller's side of an answer asked with opts.stt: what
-- the LLM heard and the turn's figures (internal/turn's, as stream() gives
-- them).
local function turn_line(turn)
  if turn.transcript == nil then
    return "heard nothing"
  end
  local parts = { "heard " .. clip(turn.transcript, 200) }
  if turn.wer ~= nil then
    parts[#parts + 1] = string.format("wer %.2f", turn.wer)
  end
  local p = turn.parts or {}
  if p.stt_final_ms ~= nil then
    parts[#parts + 1] = "stt final " .. ms(p.stt_final_ms)
  end
  if p.endpointing_ms ~= nil then
    parts[#parts + 1] = "endpointing " .. ms(p.endpointing_ms)
  end
  if p.mouth_to_ear_ms ~= nil then
    parts[#parts + 1] = "mouth to ear " .. ms(p.mouth_to_ear_ms)
  end
  return table.concat(parts, " | ")
end

function M.summary(chunks, total_ms, timings, info, opts)
  if type(chunks) ~= "table" or type(info) ~= "table" then
    error("ask.summary: want stream()'s results (chunks, total_ms, timings, info)", 2)
  end
  opts = opts or {}
  local first, first_ms = first_sentence_of(chunks, info)
  local lines = {}
  if opts.text ~= false then
    local text = text_of(chunks, info)
    lines[#lines + 1] = "answer: " .. clip(text, opts.max_text or 300)
    if first then
      lines[#lines + 1] = "first sentence at " .. ms(first_ms) .. ": " .. clip((first:gsub("^%s+", "")), 200)
    end
  end
  lines[#lines + 1] = metrics(chunks, total_ms, timings, info, first_ms)
  if info.tts_errors ~= nil then
    lines[#lines + 1] = audio_line(info)
  end
  if info.turn ~= nil then
    lines[#lines + 1] = turn_line(info.turn)
  end
  if info.error then
    lines[#lines + 1] = "error: " .. tostring(info.error)
  end
  return table.concat(lines, "\n")
end

return setmetatable(M, {
  __call = function(_, question, opts)
    return ask(question, opts)
  end,
})
