-- sentence: where the first sentence of a streamed answer ends, so a voice
-- front end knows when it could start speaking.
--
--   local sentence = require("sentence")
--   sentence.first(text, final)  -> sentence, end_index   | nil
--   sentence.first_time(chunks)  -> sentence, t_ms        | nil
--   sentence.split(text)         -> { sentence, ... }
--
-- first(text, final): the first sentence of text and the byte index of its
-- last character. The sentence is always a prefix of text
-- (text:sub(1, end_index) == sentence): leading white space is kept, trailing
-- white space is never part of it. Returns nil while the answer is not yet
-- decidable from text alone; with final true (no more text will come) the
-- whole text, trailing white space removed, is the sentence when no boundary
-- is found (nil only when text is empty or all white space).
--
-- A sentence ends at a run of '.', '!', '?' or '…' (plus closing quotes or
-- brackets right after it) that is followed by white space. So:
--   * "3.5", "e.g.," and "a.m.," do not end a sentence (no white space after
--     the dot).
--   * '!' or '?' followed by white space always ends it.
--   * An ellipsis ("..", "...", "…") ends it only when the next word starts
--     with a capital letter.
--   * A single '.' after one of these words does not end it:
--       Dr. Mr. Mrs. Ms. Mx. Prof. St. vs. e.g. i.e. cf.   never
--       a.m. p.m.    when the next word starts lowercase or with a digit
--       etc.         when the next word starts lowercase
--       No.          when the next word starts with a digit ("No. 5")
--     Any other word followed by '.' and white space ends the sentence.
--   Whether "8 a.m. " ends the sentence depends on the next word, so first
--   returns nil until a non-space character arrives (unless final).
--   Letter case is judged on ASCII letters; opening quotes and brackets before
--   the next word are skipped.
--
-- first_time(chunks): chunks is an array of {t_ms=, text=} tables (a
-- positional {t_ms, text} pair works too), e.g. a stream's content chunks.
-- Returns the first sentence and the t_ms of the chunk after which
-- first(concatenated text, false) became decidable, i.e. the chunk that
-- completed the first sentence. When that never happens, returns
-- first(all text, true) and the last chunk's t_ms. nil for no chunks or an
-- all-white-space answer.
--
-- split(text): every sentence of text in final mode, each with leading and
-- trailing white space removed. An empty or all-white-space text gives {}.

local M = {}

local ELLIPSIS = "\226\128\166"
-- Closing quotes and brackets that may follow the end mark ('He said "Hi."').
local CLOSERS = { '"', "'", ")", "]", "\226\128\157", "\226\128\153" }
-- Opening quotes and brackets that may precede a word.
local OPENERS = { '"', "'", "(", "[", "\226\128\156", "\226\128\152" }

-- Words (lowercased, final dot removed) that a single dot does not always
-- end a sentence after, and what the next word must start with for the
-- sentence to go on.
local ABBREV = {
  dr = "never", mr = "never", mrs = "never", ms = "never", mx = "never",
  prof = "never", st = "never", vs = "never", cf = "never",
  ["e.g"] = "never", ["i.e"] = "never",
  ["a.m"] = "lower_or_digit", ["p.m"] = "lower_or_digit",
  etc = "lower",
  no = "digit",
}

local CONTINUES = {
  lower = function(c) return c:find("^%l") ~= nil end,
  digit = function(c) return c:find("^%d") ~= nil end,
  lower_or_digit = function(c) return c:find("^[%l%d]") ~= nil end,
}

-- skip_seqs returns the index after any run of the byte sequences in list
-- starting at pos.
local function skip_seqs(text, pos, list)
  local moved = true
  while moved do
    moved = false
    for _, seq in ipairs(list) do
      if text:sub(pos, pos + #seq - 1) == seq then
        pos = pos + #seq
        moved = true
        break
      end
    end
  end
  return pos
end

-- next_mark finds the next end-mark run at or after pos. It returns the
-- run's first and last index and its kind: "hard" (has ! or ?), "ellipsis"
-- (two or more dots, or '…') or "dot" (exactly one '.').
local function next_mark(text, pos)
  local p = pos
  while true do
    p = text:find("[%.!?\226]", p)
    if not p then
      return nil
    end
    if text:byte(p) ~= 226 or text:sub(p, p + 2) == ELLIPSIS then
      break
    end
    p = p + 1
  end
  local q, dots, hard, ellipsis = p, 0, false, false
  while true do
    local c = text:sub(q, q)
    if c == "." then
      dots = dots + 1
      q = q + 1
    elseif c == "!" or c == "?" then
      hard = true
      q = q + 1
    elseif text:sub(q, q + 2) == ELLIPSIS then
      ellipsis = true
      q = q + 3
    else
      break
    end
  end
  local kind = "dot"
  if hard then
    kind = "hard"
  elseif ellipsis or dots >= 2 then
    kind = "ellipsis"
  end
  return p, q - 1, kind
end

-- word_before returns the lowercased word that ends right before index p,
-- without opening quotes or brackets.
local function word_before(text, p)
  local s = p
  while s > 1 and not text:sub(s - 1, s - 1):find("^%s") do
    s = s - 1
  end
  local start = skip_seqs(text, s, OPENERS)
  return text:sub(start, p - 1):lower()
end

-- next_word_char returns the first character of the word after index r (the
-- end of the white space), or nil when the text ends before one.
local function next_word_char(text, r)
  local s = text:find("%S", r + 1)
  if not s then
    return nil
  end
  s = skip_seqs(text, s, OPENERS)
  local c = text:sub(s, s)
  if c == "" then
    return nil
  end
  return c
end

-- decide says whether the mark ending at r ends the sentence: true, false,
-- or nil when the next word has not arrived yet.
local function decide(text, p, r, kind)
  if kind == "hard" then
    return true
  end
  local rule
  if kind == "dot" then
    rule = ABBREV[word_before(text, p)]
    if rule == nil then
      return true
    elseif rule == "never" then
      return false
    end
  end
  local c = next_word_char(text, r)
  if c == nil then
    return nil
  end
  if kind == "ellipsis" then
    return c:find("^%u") ~= nil
  end
  return not CONTINUES[rule](c)
end

-- trim_end returns the index of the last non-space character (0 if none).
local function trim_end(text)
  local e = #text
  while e > 0 and text:sub(e, e):find("^%s") do
    e = e - 1
  end
  return e
end

function M.first(text, final)
  if type(text) ~= "string" then
    error("sentence.first: text must be a string, got " .. type(text), 2)
  end
  local pos = 1
  while true do
    local p, q, kind = next_mark(text, pos)
    if not p then
      break
    end
    local r = skip_seqs(text, q + 1, CLOSERS) - 1
    if r >= #text then
      -- The mark is the last thing so far: more marks, a closer or a
      -- letter could still follow.
      break
    end
    if text:sub(r + 1, r + 1):find("^%s") then
      local ends = decide(text, p, r, kind)
      if ends == nil and not final then
        return nil
      end
      if ends ~= false then
        return text:sub(1, r), r
      end
    end
    pos = q + 1
  end
  if not final then
    return nil
  end
  local e = trim_end(text)
  if e == 0 then
    return nil
  end
  return text:sub(1, e), e
end

-- chunk_fields accepts {t_ms=, text=} and {t_ms, text}.
local function chunk_fields(c, i)
  if type(c) ~= "table" then
    error(string.format("sentence.first_time: chunks[%d] is a %s, want a table {t_ms=, text=}", i, type(c)), 3)
  end
  local t, s = c.t_ms, c.text
  if t == nil and s == nil then
    t, s = c[1], c[2]
  end
  if type(t) ~= "number" or type(s) ~= "string" then
    error(string.format("sentence.first_time: chunks[%d] needs a number t_ms and a string text, got %s and %s",
      i, type(t), type(s)), 3)
  end
  return t, s
end

function M.first_time(chunks)
  if type(chunks) ~= "table" then
    error("sentence.first_time: chunks must be an array, got " .. type(chunks), 2)
  end
  local parts, last_t = {}, nil
  for i = 1, #chunks do
    local t, s = chunk_fields(chunks[i], i)
    parts[i] = s
    last_t = t
    local found = M.first(table.concat(parts), false)
    if found then
      return found, t
    end
  end
  if last_t == nil then
    return nil
  end
  local found = M.first(table.concat(parts), true)
  if not found then
    return nil
  end
  return found, last_t
end

function M.split(text)
  if type(text) ~= "string" then
    error("sentence.split: text must be a string, got " .. type(text), 2)
  end
  local out = {}
  local pos = 1
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

return M
