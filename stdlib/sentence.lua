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
-- sentence_end, clause_end and char_count. stdlib/README.md states every
-- rule and function. first and first_clause return a prefix of text and
-- the byte index of its last character, or nil while more text could
-- change it; with final true (no more text will come) nil only for a
-- blank text. first_time gives the t_ms of the chunk after which the first
-- sentence was decidable (chunks: {t_ms=, text=} or {t_ms, text} pairs).

local M = {}

local sentence_end, clause_end, char_count = sentence_end, clause_end, char_count

M.MIN_CLAUSE_CHARS = 20

function M.first(text, final)
  if type(text) ~= "string" then
    error("sentence.first: text must be a string, got " .. type(text), 2)
  end
  local e = sentence_end(text, final)
  if e == nil then
    return nil
  end
  return text:sub(1, e), e
end

function M.first_clause(text, final, min_chars)
  if type(text) ~= "string" then
    error("sentence.first_clause: text must be a string, got " .. type(text), 2)
  end
  if min_chars == nil then
    min_chars = M.MIN_CLAUSE_CHARS
  elseif type(min_chars) ~= "number" or min_chars < 0 or min_chars ~= math.floor(min_chars) then
    error("sentence.first_clause: min_chars must be a whole number >= 0, got " .. tostring(min_chars), 2)
  end
  local e = clause_end(text, final, min_chars)
  if e == nil then
    return nil
  end
  return text:sub(1, e), e
end

function M.chars(text, i, j)
  if i ~= nil or j ~= nil then
    text = text:sub(i or 1, j or -1)
  end
  return char_count(text)
end

function M.split(text)
  if type(text) ~= "string" then
    error("sentence.split: text must be a string, got " .. type(text), 2)
  end
  local out, pos = {}, 1
  while true do
    local s = text:find("%S", pos)
    if not s then
      return out
    end
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
  if type(chunks) ~= "table" then
    error("sentence.first_time: chunks must be an array, got " .. type(chunks), 2)
  end
  local parts, ts, ends, len = {}, {}, {}, 0
  for i = 1, #chunks do
    local c = chunks[i]
    if type(c) ~= "table" then
      error(string.format("sentence.first_time: chunks[%d] is a %s, want a table {t_ms=, text=}", i, type(c)), 2)
    end
    local t, s = c.t_ms, c.text
    if t == nil and s == nil then
      t, s = c[1], c[2]
    end
    if type(t) ~= "number" or type(s) ~= "string" then
      error(string.format("sentence.first_time: chunks[%d] needs a number t_ms and a string text, got %s and %s",
        i, type(t), type(s)), 2)
    end
    parts[i], ts[i], len = s, t, len + #s
    ends[i] = len
  end
  if #ts == 0 then
    return nil
  end
  local text = table.concat(parts)
  local i, found = M.decided(text, ends, 1, 1, function(s) return M.first(s, false) end)
  if i then
    return found, ts[i]
  end
  found = M.first(text, true)
  if not found then
    return nil
  end
  return found, ts[#ts]
end

return M
