-- sentence: where the first sentence of a streamed answer ends, so a voice
-- front end knows when it could start speaking.
--
--   local sentence = require("sentence")
--   sentence.first(text, final)  -> sentence, end_index   | nil
--   sentence.first_time(chunks)  -> sentence, t_ms        | nil
--   sentence.split(text)         -> { sentence, ... }
--   sentence.first_clause(text, final, min_chars) -> clause, end_index | nil
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
-- brackets right after it) that is followed by white space or by CJK text
-- (Korean writes ". " like English; "你好!我是" ends after '!'). A run with
-- a full-width stop of Chinese or Japanese (。 ！ ？ ｡) ends the sentence by
-- itself, closing quotes and brackets after it included (」 』 ” ） ...); it
-- is decided once any other character follows. So:
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
--
-- first_clause(text, final, min_chars): like first, but also ends at the
-- first clause mark that at least min_chars characters (UTF-8 characters,
-- default M.MIN_CLAUSE_CHARS = 20, leading white space not counted)
-- precede, when that comes before the end of the first sentence: ',' ';'
-- ':' '–' '—' followed by white space, a hyphen with white space on both
-- sides, or the full-width ， 、 ； ： by themselves. An earlier, riskier
-- moment for a voice front end to start speaking.

local M = {}

local ELLIPSIS = "\226\128\166"
-- Full-width terminators of Chinese and Japanese: 。 ！ ？ and the
-- half-width ideographic full stop ｡. They end a sentence by themselves:
-- no white space follows them in CJK text.
local FULL_STOPS = { "\227\128\130", "\239\188\129", "\239\188\159", "\239\189\161" }
-- Closing quotes and brackets that may follow the end mark ('He said "Hi."'):
-- ASCII, ” ’, and the full-width 」 』 ） 】 》 〉 〕 ］ ＂ ＇.
local CLOSERS = { '"', "'", ")", "]", "\226\128\157", "\226\128\153",
  "\227\128\141", "\227\128\143", "\239\188\137", "\227\128\145", "\227\128\139",
  "\227\128\137", "\227\128\149", "\239\188\189", "\239\188\130", "\239\188\135" }
-- Opening quotes and brackets that may precede a word: ASCII, “ ‘, and the
-- full-width 「 『 （ 【 《 〈 〔 ［.
local OPENERS = { '"', "'", "(", "[", "\226\128\156", "\226\128\152",
  "\227\128\140", "\227\128\142", "\239\188\136", "\227\128\144", "\227\128\138",
  "\227\128\136", "\227\128\148", "\239\188\187" }

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

-- seq_at returns the sequence of list found at index p, or nil.
local function seq_at(text, p, list)
  for _, seq in ipairs(list) do
    if text:sub(p, p + #seq - 1) == seq then
      return seq
    end
  end
  return nil
end

-- skip_seqs returns the index after any run of the byte sequences in list
-- starting at pos.
local function skip_seqs(text, pos, list)
  while true do
    local seq = seq_at(text, pos, list)
    if not seq then
      return pos
    end
    pos = pos + #seq
  end
end

-- codepoint decodes the UTF-8 character at index i: its code point and
-- length in bytes (a byte that starts no valid character reads as itself).
local function codepoint(text, i)
  local b = text:byte(i)
  if b == nil then
    return nil, 0
  end
  if b < 192 then
    return b, 1
  end
  local n = (b >= 240 and 4) or (b >= 224 and 3) or 2
  local cp = b % 2 ^ (7 - n)
  for k = 1, n - 1 do
    local c = text:byte(i + k)
    if c == nil or c < 128 or c > 191 then
      return b, 1
    end
    cp = cp * 64 + (c - 128)
  end
  return cp, n
end

-- incomplete says whether the character starting at index i is cut off by
-- the end of text (more of it is still to come).
local function incomplete(text, i)
  local b = text:byte(i)
  if b == nil or b < 192 then
    return false
  end
  local n = (b >= 240 and 4) or (b >= 224 and 3) or 2
  return i + n - 1 > #text
end

-- CJK: ideographs, kana, Hangul syllables, CJK punctuation and full-width
-- forms, as code point ranges.
local CJK = { { 0x3000, 0x30FF }, { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xAC00, 0xD7AF },
  { 0xF900, 0xFAFF }, { 0xFF00, 0xFFEF }, { 0x20000, 0x3FFFF } }

local function is_cjk(text, i)
  local cp = codepoint(text, i)
  if cp == nil then
    return false
  end
  for _, r in ipairs(CJK) do
    if cp >= r[1] and cp <= r[2] then
      return true
    end
  end
  return false
end

-- separates says whether the character at index i may follow an end mark
-- that ends a sentence: white space, or the first character of CJK text
-- ("你好!我是" ends after "你好!").
local function separates(text, i)
  return text:sub(i, i):find("^%s") ~= nil or is_cjk(text, i)
end

-- chars counts the UTF-8 characters of text:sub(i, j).
local function chars(text, i, j)
  local _, n = text:sub(i, j):gsub("[^\128-\191]", "")
  return n
end

-- mark_len is the length of the end mark at index p (0 if none): '.',
-- '!', '?', '…' or a full-width stop.
local function mark_len(text, p)
  local c = text:sub(p, p)
  if c == "." or c == "!" or c == "?" then
    return 1
  end
  if text:sub(p, p + 2) == ELLIPSIS or seq_at(text, p, FULL_STOPS) then
    return 3
  end
  return 0
end

-- next_mark finds the next end-mark run at or after pos. It returns the
-- run's first and last index and its kind: "full" (has a full-width stop),
-- "hard" (has ! or ?), "ellipsis" (two or more dots, or '…') or "dot"
-- (exactly one '.').
local function next_mark(text, pos)
  local p = pos
  while true do
    p = text:find("[%.!?\226\227\239]", p)
    if not p then
      return nil
    end
    if mark_len(text, p) > 0 then
      break
    end
    p = p + 1
  end
  local q, dots, hard, ellipsis, full = p, 0, false, false, false
  while mark_len(text, q) > 0 do
    local c = text:sub(q, q)
    if c == "." then
      dots = dots + 1
    elseif c == "!" or c == "?" then
      hard = true
    elseif text:sub(q, q + 2) == ELLIPSIS then
      ellipsis = true
    else
      full = true
    end
    q = q + mark_len(text, q)
  end
  local kind = "dot"
  if full then
    kind = "full"
  elseif hard then
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
  if c == "" or incomplete(text, s) then
    return nil
  end
  if is_cjk(text, s) then
    -- CJK letters have no case; like a lowercase letter, they do not
    -- start a new sentence after an abbreviation or an ellipsis.
    return "a"
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
    if r >= #text or incomplete(text, r + 1) then
      -- The mark is the last thing so far: more marks, a closer or a
      -- letter could still follow.
      break
    end
    if kind == "full" then
      return text:sub(1, r), r
    end
    if separates(text, r + 1) then
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

-- Clause marks. The ASCII ones (and – —) end a clause only before white
-- space, so "7:30" and "1,000" do not; a hyphen only with white space on
-- both sides (" - "), so "walk-in" does not. The full-width ， 、 ； ： of
-- CJK text end one by themselves.
local CLAUSE_SPACED = { ",", ";", ":", "\226\128\147", "\226\128\148" }
local CLAUSE_FULL = { "\239\188\140", "\227\128\129", "\239\188\155", "\239\188\154" }

M.MIN_CLAUSE_CHARS = 20

-- clause_mark returns the length of the clause mark at index p that is
-- decided to end a clause (0 when there is none or it is not yet known).
local function clause_mark(text, p)
  local full = seq_at(text, p, CLAUSE_FULL)
  if full then
    return #full
  end
  local seq = seq_at(text, p, CLAUSE_SPACED)
  if seq == nil and text:sub(p, p) == "-" and p > 1 and text:sub(p - 1, p - 1):find("^%s") then
    seq = "-"
  end
  if seq and text:sub(p + #seq, p + #seq):find("^%s") then
    return #seq
  end
  return 0
end

-- clause_end returns the end index of the first clause mark before index
-- limit that at least min_chars characters (white space at the start not
-- counted) precede, or nil.
local function clause_end(text, min_chars, limit)
  local start = text:find("%S")
  local p = start
  while p do
    p = text:find("[,;:%-\226\227\239]", p)
    if not p or p >= limit then
      return nil
    end
    local len = clause_mark(text, p)
    if len > 0 and chars(text, start, p - 1) >= min_chars then
      return p + len - 1
    end
    p = p + math.max(len, 1)
  end
  return nil
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
  local s, s_end = M.first(text, final)
  local e = clause_end(text, min_chars, s_end or #text + 1)
  if e then
    return text:sub(1, e), e
  end
  if s == nil then
    return nil
  end
  return s, s_end
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
