-- sentence: where the first sentence of a streamed answer ends, so a voice
-- front end knows when it could start speaking.
--
--   local sentence = require("sentence")
--   sentence.first(text, final)  -> sentence, end_index   | nil
--   sentence.first_time(chunks)  -> sentence, t_ms        | nil
--   sentence.split(text)         -> { sentence, ... }
--   sentence.first_clause(text, final, min_chars) -> clause, end_index | nil
--   sentence.chars(text, i, j)   -> UTF-8 characters of text:sub(i, j)
--   sentence.decided(text, ends, from, pos, decide) -> i, value, end | nil
--
-- The rules are Go's (internal/sentence), the same that cut stream_many's
-- answers for speech; this module binds them through the host's
-- sentence_end, clause_end and char_count. stdlib/README.md states them.
--
-- first(text, final): the first sentence of text and the byte index of its
-- last character, a prefix of text (leading white space kept, trailing
-- white space never part of it); nil while more text could change it. With
-- final true (no more text will come) and no boundary found, the whole text
-- without its trailing white space (nil only for a blank text). A sentence
-- ends at '.', '!', '?', '…' (and closing quotes or brackets) before white
-- space or CJK text, or at a full-width stop (。 ！ ？ ｡) by itself; a
-- single '.' after Dr. Mr. e.g. ... does not end it, after a.m. p.m. etc.
-- No. and an ellipsis it depends on the next word.
--
-- first_time(chunks): chunks is an array of {t_ms=, text=} tables (a
-- positional {t_ms, text} pair works too). The first sentence and the t_ms
-- of the chunk after which first(text so far, false) became decidable;
-- when that never happens, first(all text, true) and the last chunk's t_ms;
-- nil for no chunks or an all-white-space answer.
--
-- split(text): every sentence of text in final mode, each with leading and
-- trailing white space removed ({} for a blank text).
--
-- first_clause(text, final, min_chars): like first, but also ends at the
-- first clause mark (, ; : – — before white space, " - ", or ， 、 ； ：)
-- that at least min_chars characters (default M.MIN_CLAUSE_CHARS) precede,
-- when that comes before the end of the first sentence.

local M = {}

local sentence_end, clause_end, char_count = sentence_end, clause_end, char_count

M.MIN_CLAUSE_CHARS = 20

-- prefix is text up to end index e and e, or nil.
local function prefix(text, e)
  if e == nil then return nil end
  return text:sub(1, e), e
end

function M.first(text, final)
  if type(text) ~= "string" then error("sentence.first: text must be a string, got " .. type(text), 2) end
  return prefix(text, sentence_end(text, final))
end

function M.first_clause(text, final, min_chars)
  if type(text) ~= "string" then error("sentence.first_clause: text must be a string, got " .. type(text), 2) end
  if min_chars == nil then
    min_chars = M.MIN_CLAUSE_CHARS
  elseif type(min_chars) ~= "number" or min_chars < 0 or min_chars ~= math.floor(min_chars) then
    error("sentence.first_clause: min_chars must be a whole number >= 0, got " .. tostring(min_chars), 2)
  end
  return prefix(text, clause_end(text, final, min_chars))
end

-- M.chars(text, i, j) counts the UTF-8 characters of text:sub(i, j) (all
-- of text without i and j): every byte that does not continue one.
function M.chars(text, i, j)
  if i ~= nil or j ~= nil then text = text:sub(i or 1, j or -1) end
  return char_count(text)
end

function M.split(text)
  if type(text) ~= "string" then error("sentence.split: text must be a string, got " .. type(text), 2) end
  local out, pos = {}, 1
  while true do
    local s = text:find("%S", pos)
    if not s then return out end
    local found, e = M.first(text:sub(s), true)
    out[#out + 1] = found
    pos = s + e
  end
end

-- M.decided(text, ends, from, pos, decide) is the first chunk index i
-- (from `from` on) whose end makes decide(text:sub(pos, ends[i])) give a
-- value, and that value and the index where it ends (decide returns both,
-- as first and first_clause do); nil when no chunk does. ends[i] is the
-- byte where chunk i ends in text. A decision, once made, stands for every
-- longer text, so only the chunks from the one holding its end need a try.
function M.decided(text, ends, from, pos, decide)
  local n = #ends
  if from > n then return nil end
  local value, e = decide(text:sub(pos, ends[n]))
  if value == nil then return nil end
  local last = pos + e - 1
  local lo, hi = from, n
  while lo < hi do -- the first chunk that holds the end
    local mid = math.floor((lo + hi) / 2)
    if ends[mid] >= last then hi = mid else lo = mid + 1 end
  end
  -- Gallop from there to a chunk that decides, then halve back.
  local step, prev, i = 1, lo - 1, lo
  while i < n and decide(text:sub(pos, ends[i])) == nil do
    prev, i, step = i, math.min(i + step, n), step * 2
  end
  lo, hi = prev + 1, i
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if decide(text:sub(pos, ends[mid])) ~= nil then hi = mid else lo = mid + 1 end
  end
  if lo == n then return n, value, e end
  value, e = decide(text:sub(pos, ends[lo]))
  return lo, value, e
end

function M.first_time(chunks)
  if type(chunks) ~= "table" then error("sentence.first_time: chunks must be an array, got " .. type(chunks), 2) end
  local parts, ts, ends, len = {}, {}, {}, 0
  for i = 1, #chunks do
    local c = chunks[i]
    if type(c) ~= "table" then
      error(string.format("sentence.first_time: chunks[%d] is a %s, want a table {t_ms=, text=}", i, type(c)), 2)
    end
    local t, s = c.t_ms, c.text
    if t == nil and s == nil then t, s = c[1], c[2] end
    if type(t) ~= "number" or type(s) ~= "string" then
      error(string.format("sentence.first_time: chunks[%d] needs a number t_ms and a string text, got %s and %s",
        i, type(t), type(s)), 2)
    end
    parts[i], ts[i], len = s, t, len + #s
    ends[i] = len
  end
  if #ts == 0 then return nil end
  local text = table.concat(parts)
  local i, found = M.decided(text, ends, 1, 1, function(s) return M.first(s, false) end)
  if i then return found, ts[i] end
  found = M.first(text, true)
  if not found then return nil end
  return found, ts[#ts]
end

return M
