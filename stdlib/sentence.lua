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

-- find_any returns the first index at or after pos of any of the single
-- bytes in list, or nil. It uses plain finds: a pattern with a character
-- class is tried at every position of the text in turn, which on a long
-- answer costs far more than a plain search for each byte.
local function find_any(text, pos, list)
  local best
  for _, b in ipairs(list) do
    local i = text:find(b, pos, true)
    if i and (best == nil or i < best) then
      best = i
    end
  end
  return best
end

local END_BYTES = { ".", "!", "?", "\226", "\227", "\239" }
local CLAUSE_BYTES = { ",", ";", ":", "-", "\226", "\227", "\239" }

-- SPACE holds the bytes %s matches. A lookup by byte is one call into
-- the VM's string library where a pattern would be a match attempt.
local SPACE = { [9] = true, [10] = true, [11] = true, [12] = true, [13] = true, [32] = true }

local function space_at(text, i)
  return SPACE[text:byte(i) or 0] == true
end

-- by_first_byte indexes each list of byte sequences by its first byte, so
-- seq_at compares only the sequences that can match.
local by_first_byte = {}

-- seq_at returns the sequence of list found at index p, or nil.
local function seq_at(text, p, list)
  local index = by_first_byte[list]
  if index == nil then
    index = {}
    for _, seq in ipairs(list) do
      local b = seq:byte(1)
      index[b] = index[b] or {}
      table.insert(index[b], seq)
    end
    by_first_byte[list] = index
  end
  local candidates = index[text:byte(p) or 0]
  if candidates == nil then
    return nil
  end
  for _, seq in ipairs(candidates) do
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
  return space_at(text, i) or is_cjk(text, i)
end

-- CONTINUATION holds the 64 bytes that continue a UTF-8 character.
local CONTINUATION = {}
for b = 128, 191 do
  CONTINUATION[#CONTINUATION + 1] = string.char(b)
end

-- M.chars(text, i, j) counts the UTF-8 characters of text:sub(i, j) (all
-- of text without i and j): every byte that does not continue one. In
-- this VM a pattern, or a call per byte, costs about a tenth of a
-- microsecond per byte, so a text with no continuation byte at all (ASCII,
-- most English answers) is found out by 64 plain searches and counted by
-- its length; any other is read a block of bytes at a time.
function M.chars(text, i, j)
  if i ~= nil or j ~= nil then
    text = text:sub(i or 1, j or -1)
  end
  local any = false
  for _, c in ipairs(CONTINUATION) do
    if text:find(c, 1, true) then
      any = true
      break
    end
  end
  if not any then
    return #text
  end
  local n = 0
  for k = 1, #text, 256 do
    local block = { text:byte(k, math.min(k + 255, #text)) }
    for x = 1, #block do
      local b = block[x]
      if b < 128 or b > 191 then
        n = n + 1
      end
    end
  end
  return n
end

local chars = M.chars

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
    p = find_any(text, p, END_BYTES)
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
-- without opening quotes or brackets. It looks back at most 64 bytes: a
-- longer word is no abbreviation, and text without spaces (CJK, digits)
-- would otherwise be read back to its start at every mark.
local function word_before(text, p)
  local s = p
  while s > 1 and s > p - 64 and not space_at(text, s - 1) do
    s = s - 1
  end
  if s > 1 and not space_at(text, s - 1) then
    return ""
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
  while e > 0 and space_at(text, e) do
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
  if seq == nil and text:sub(p, p) == "-" and p > 1 and space_at(text, p - 1) then
    seq = "-"
  end
  if seq and space_at(text, p + #seq) then
    return #seq
  end
  return 0
end

-- clause_end returns the end index of the first clause mark before index
-- limit that at least min_chars characters (white space at the start not
-- counted) precede, or nil.
local function clause_end(text, min_chars, limit)
  local start = text:find("%S")
  local p, counted, count = start, start, 0
  while p do
    p = find_any(text, p, CLAUSE_BYTES)
    if not p or p >= limit then
      return nil
    end
    local len = clause_mark(text, p)
    if len > 0 then
      -- Count on from where the last mark's count stopped, so many marks
      -- cost one pass over the text.
      count = count + chars(text, counted, p - 1)
      counted = p
    end
    if len > 0 and count >= min_chars then
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

-- M.decided(text, ends, from, pos, decide) is the first chunk index i
-- (from `from` on) whose end makes decide(text:sub(pos, ends[i])) give a
-- value, and that value and the index where it ends (decide returns both,
-- as first and first_clause do); nil when no chunk does. ends[i] is the
-- byte where chunk i ends in text. A decision, once made, stands for every
-- longer text (more text never undoes a sentence end), so the decision on
-- the whole rest says where the answer ends, and only the chunks from the
-- one holding that end on need a try: a few tries, where trying every
-- chunk would cost time quadratic in the answer's length.
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
    local t, s = chunk_fields(chunks[i], i)
    parts[i], ts[i] = s, t
    len = len + #s
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
