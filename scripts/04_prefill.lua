-- Step 4: how prefill grows with the prompt: 0, 4 and 12 documents of the knowledge base
-- appended to the system prompt, cache off (labconf.cold where the server
-- ignores cache_prompt false). Prompt tokens come from timings or usage
-- (labconf.tokens); prompt_ms, the server's own prefill time, only from
-- llama.cpp's timings: null elsewhere, and the artifact says so.
-- One repetition measures the three counts in turn; the step takes REPEAT
-- of them (--repeat, default 6, labconf.repeated). A repetition in which a
-- prompt found cached tokens (it was not cold) is set aside with why and
-- measured again.
local prompt = require("prompt")
local stats = require("stats")
local conf = dofile("labconf.lua")

local DOC_COUNTS = { 0, 4, 12 }
local docs = conf.need_docs(DOC_COUNTS[#DOC_COUNTS])
-- The figures are the prompt's: the time to the first token and the
-- server's prefill time. The answer after the first token is not
-- measured, so each request asks for a few tokens only (32 before the step
-- repeated: about a quarter of a repetition's time, spent decoding).
local MAX_TOKENS = 4
-- A cold prompt may find in the cache no more than its chat template's
-- opening, before the line that makes it cold (labconf.cold) where the
-- server caches by the token: at most 16 tokens or 5 % of the prompt,
-- whichever is more.
local COLD_TOKENS, COLD_SHARE = 16, 0.05

local systems = {}
for i, n in ipairs(DOC_COUNTS) do systems[i] = prompt.build(conf.SYSTEM_ONE, docs, n) end

local source, cold_note, notes, warm = nil, nil, {}, false
local runs, discarded = conf.repeated("prefill", function(k)
  -- One unrecorded request before the first attempt, so the 0-docs row
  -- does not carry a cold start when this step runs alone; inside the
  -- attempt, so on its turn (take_turn).
  if not warm then
    stream((conf.cold(conf.messages(conf.SYSTEM_ONE, conf.Q_SATURDAY))), { max_tokens = 4, cache_prompt = false })
    warm = true
  end
  local rep = {}
  for i, n in ipairs(DOC_COUNTS) do
    local what = string.format("prefill with %d docs", n)
    local messages
    messages, cold_note = conf.cold(conf.messages(systems[i], conf.Q_SATURDAY))
    local _, _, timings, info = stream(messages, { max_tokens = MAX_TOKENS, cache_prompt = false })
    local t = conf.need_tokens(timings, info, what)
    local ttft = conf.need_ttft(info, what)
    if t.cache_n and t.cache_n > math.max(COLD_TOKENS, COLD_SHARE * (t.prompt_n + t.cache_n)) then
      return nil, string.format("%d docs: the cold prompt found %d of its %d tokens in the cache (cache_n)",
        n, t.cache_n, t.prompt_n + t.cache_n)
    end
    source = t.source
    notes[i] = t.prompt_ms == nil and "no server-side prefill time from this server (no timings.prompt_ms): ttft only" or nil
    rep[i] = { prompt_n = t.prompt_n, prompt_ms = t.prompt_ms or json_null, ttft_ms = ttft }
  end
  return rep
end)

-- One row per count of documents, as before the step repeated: its values
-- at the top level are the first repetition's, every repetition's in runs.
local rows, parts = {}, {}
for i, n in ipairs(DOC_COUNTS) do
  local row_runs, ttfts = {}, {}
  for k, rep in ipairs(runs) do row_runs[k], ttfts[k] = rep[i], rep[i].ttft_ms end
  local first = row_runs[1]
  rows[i] = { docs = n, prompt_n = first.prompt_n, prompt_ms = first.prompt_ms, ttft_ms = first.ttft_ms,
    tokens_from = source, cold_prompt = cold_note, note = notes[i],
    ["repeat"] = conf.REPEAT, runs = row_runs, discarded = #discarded > 0 and discarded or nil }
  parts[i] = string.format("%d docs: %d tok %.1f ms", n, first.prompt_n, stats.median(ttfts))
end
write_json("prefill.json", rows)

local line = "ttft p50 " .. table.concat(parts, "; ") .. string.format(" (%d runs%s)", #runs,
  #discarded > 0 and (", " .. #discarded .. " set aside") or "") ..
  (source ~= "timings" and ("; tokens from " .. source .. ", no prompt_ms") or "")
print("prefill: " .. line)
return line
