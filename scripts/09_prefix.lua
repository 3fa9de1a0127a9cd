-- Step 9: where a changing line costs the cache. A line that changes on
-- every call (the time) sits at one of several places in the KB prompt,
-- from the very front to right before the question. For each place the
-- cache is primed with the previous call's prompt (the line one minute
-- earlier), then the call is timed: what the server could reuse (cache_n)
-- and had to evaluate (prompt_n), beside the most reuse the server's own
-- template and tokenizer allow (prompt.first_difference).
local prompt = require("prompt")
local conf = dofile("labconf.lua")

local DOCS = 4
local BEFORE, NOW = "Current time: 14:04.", "Current time: 14:05."

local docs = conf.need_docs(DOCS)
local texts = {}
for i = 1, DOCS do texts[i] = docs[i] end

-- messages places line at position (nil: nowhere).
local POSITIONS = { "front", "after_system", "between_docs", "after_docs", "before_question" }
local function messages(position, line)
  local parts = { conf.SYSTEM_ONE }
  local half = math.floor(DOCS / 2)
  for i = 1, DOCS do
    if position == "between_docs" and i == half + 1 then parts[#parts + 1] = line end
    if position == "after_system" and i == 1 then parts[#parts + 1] = line end
    parts[#parts + 1] = (prompt.build("", { texts[i] }, 1):gsub("^%s+", ""))
  end
  if position == "after_docs" then parts[#parts + 1] = line end
  if position == "front" then table.insert(parts, 1, line) end
  local user = conf.Q_SATURDAY
  if position == "before_question" then user = line .. "\n" .. user end
  return conf.messages(table.concat(parts, "\n\n"), user)
end

-- measure is one request's figures; cache_n is nil when the server sent
-- no cached-token count (a hosted API that leaves it out).
local function measure(msgs, what)
  local _, _, timings, info = stream(msgs, { max_tokens = 8, cache_prompt = true })
  local t = conf.need_tokens(timings, info, what)
  return { prompt_n = t.prompt_n, cache_n = t.cache_n, ttft_ms = conf.need_ttft(info, what) }
end

-- NO_COUNT is the step's answer on a server that does not say what came
-- from its cache: skipped with the reason, as the cache step is.
local NO_COUNT = { skip = "the server sent no cached-token count (usage.prompt_tokens_details.cached_tokens); " ..
  "what each position of the changing line costs cannot be told" }

local rows = json_array()
for _, position in ipairs(POSITIONS) do
  local primed, timed = messages(position, BEFORE), messages(position, NOW)
  if measure(primed, "prefix " .. position .. " priming").cache_n == nil then return NO_COUNT end
  local r = measure(timed, "prefix " .. position)
  if r.cache_n == nil then return NO_COUNT end
  local ok, diff = pcall(prompt.first_difference, primed, timed)
  r.position = position
  r.first_difference = ok and diff.tokens or json_null
  r.at_char = ok and diff.at_char or json_null
  rows[#rows + 1] = r
end

local front, last = rows[1], rows[#rows]
local advice = string.format("at the front the changing line costs %d tokens of prefill and %.1f ms to first token; " ..
  "right before the question %d tokens and %.1f ms", front.prompt_n, front.ttft_ms, last.prompt_n, last.ttft_ms)
write_json("prefix.json", { changing_line = NOW, docs = DOCS, positions = rows, advice = advice })

print("prefix: " .. advice)
return advice
