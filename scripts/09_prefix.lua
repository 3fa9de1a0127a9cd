-- Step 9: where a changing line costs the cache, REPEAT times (--repeat,
-- default 6). A line that changes on every call (the time) sits at one of
-- several places in the KB prompt, from the very front to right before
-- the question. For each place the cache is primed with the previous
-- call's prompt (the line one minute earlier) up to the line, the part
-- the call can reuse, then the call is timed:
-- what the server could reuse (cache_n) and had to evaluate (prompt_n),
-- beside the most reuse the server's own template and tokenizer allow
-- (prompt.first_difference). A place whose timed call reused more than
-- its primed prompt shares with it (the cache held that very prompt, from
-- an earlier attempt) is set aside with why and the repetition measured
-- again, from then on with a clock of its own at each attempt.
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local DOCS = 2

local docs = conf.need_docs(DOCS)
local texts = {}
for i = 1, DOCS do texts[i] = docs[i] end

-- messages places line at position. With cut a system message that holds
-- the line ends right after it: what follows a changed line is never
-- reused, so a priming call needs no more (before the question, what
-- follows is the question alone, sent whole).
local POSITIONS = { "front", "after_system", "between_docs", "after_docs", "before_question" }
local function messages(position, line, cut)
  local parts = { conf.SYSTEM_ONE }
  local half = math.floor(DOCS / 2)
  for i = 1, DOCS do
    if (position == "between_docs" and i == half + 1) or (position == "after_system" and i == 1) then
      parts[#parts + 1] = line
      if cut then break end
    end
    parts[#parts + 1] = (prompt.build("", { texts[i] }, 1):gsub("^%s+", ""))
  end
  if position == "after_docs" then parts[#parts + 1] = line end
  if position == "front" then
    if cut then parts = {} end
    table.insert(parts, 1, line)
  end
  local user = conf.Q_SATURDAY
  if position == "before_question" then user = line .. "\n" .. user end
  return conf.messages(table.concat(parts, "\n\n"), user)
end

-- clock(minutes) is the changing line at 14:04 plus minutes.
local function clock(minutes)
  local m = 14 * 60 + 4 + minutes
  return string.format("Current time: %02d:%02d.", math.floor(m / 60) % 24, m % 60)
end

-- NO_COUNT is the step's answer on a server that does not say what came
-- from its cache: skipped with the reason, as the cache step is.
local NO_COUNT = { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
  "what each position of the changing line costs cannot be told" }

-- measure is one request's figures; a server that sends no cached-token
-- count (a hosted API that leaves it out) stops the step. The figures are
-- first tokens: two are enough for one to be content.
local function measure(msgs, what, max_tokens)
  local _, _, timings, info = stream(msgs, { max_tokens = max_tokens or 2, cache_prompt = true })
  local t = conf.need_tokens(timings, info, what)
  if t.cache_n == nil then error(NO_COUNT, 0) end
  return t, info
end

-- The clock of each attempt. While no attempt finds an earlier one's
-- prompt in the server's cache, every attempt sends 14:04 and 14:05, and
-- the prompts' first difference is asked once. Once one does (a
-- host-memory cache such as llama.cpp's --cache-ram keeps earlier
-- prompts), or where the server cannot say the first difference (so such
-- a hit could not be told), each attempt's clock stands two minutes after
-- the last one's (14:06 and 14:07, ...), its prompts new to every cache,
-- with their own first difference.
local fresh, attempt = false, 0
local differences = {}
local function first_difference(primed, timed, key)
  if differences[key] == nil then
    local ok, diff = pcall(prompt.first_difference, primed, timed)
    differences[key] = ok and diff or false
  end
  return differences[key]
end

local function repetition(k)
  attempt = attempt + 1
  local shift = fresh and 2 * (attempt - 1) or 0
  local before, now = clock(shift), clock(shift + 1)
  local rows = json_array()
  for _, position in ipairs(POSITIONS) do
    local primed, timed = messages(position, before), messages(position, now)
    measure(messages(position, before, true), "prefix " .. position .. " priming", 1)
    local what = "prefix " .. position
    local t, info = measure(timed, what)
    local r = { position = position, prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }
    local diff = first_difference(primed, timed, now .. " " .. position)
    if not diff then
      fresh = true
    elseif r.cache_n > diff.tokens then
      fresh = true
      return nil, string.format("with the line %s the call reused %d tokens, more than the %d its primed prompt shares " ..
        "with it: the cache held this very prompt", position, r.cache_n, diff.tokens)
    end
    r.first_difference = diff and diff.tokens or json_null
    r.at_char = diff and diff.at_char or json_null
    rows[#rows + 1] = r
  end
  return { changing_line = now, positions = rows }
end

local ok, runs, discarded = pcall(conf.repeated, "prefix", repetition)
if not ok then
  if runs == NO_COUNT then return NO_COUNT end
  error(runs, 0)
end

-- The medians over the repetitions of a place's figure.
local function med(i, field)
  return conf.median_of(runs, function(run) return run.positions[i][field] end)
end
local n = #POSITIONS
local advice = string.format("at the front the changing line costs %g tokens of prefill and %.1f ms to first token; " ..
  "right before the question %g tokens and %.1f ms", med(1, "prompt_n"), med(1, "ttft_ms"), med(n, "prompt_n"), med(n, "ttft_ms"))
-- The top level holds the first repetition, as the file did before it
-- had runs; advice is in the medians.
local result = { changing_line = runs[1].changing_line, docs = DOCS, positions = runs[1].positions, advice = advice,
  ["repeat"] = conf.REPEAT, runs = runs }
if #discarded > 0 then result.discarded = discarded end
write_json("prefix.json", result)

local line = string.format("%s (medians of %d runs%s)", advice, #runs, #discarded > 0 and (", " .. #discarded .. " set aside") or "")
print("prefix: " .. line)
return line
