-- The whole lab: runs every step in order and prints a summary table.
--   ttftlab lab [flags] [-- STEP...]   (STEP: a name such as "prefill" to run only those)
-- Each step writes its artifacts as soon as it ends, so a later failure
-- loses nothing. After a failed step the lab goes on with the steps that do
-- not depend on it (KEEP_GOING, the --keep-going flag, default true); steps
-- that need a failed step's artifacts are skipped. It exits 1 when any step
-- failed or was skipped.
local STEPS = {
  { file = "01_server.lua",   name = "server",   artifacts = { "health.json", "props.json" } },
  { file = "02_stream.lua",   name = "stream",   artifacts = { "sse_raw.txt", "chunks.jsonl" } },
  { file = "03_ttft.lua",     name = "ttft",     artifacts = { "ttft.json" } },
  { file = "04_prefill.lua",  name = "prefill",  artifacts = { "prefill.json" } },
  { file = "05_cache.lua",    name = "cache",    artifacts = { "cache.json" } },
  { file = "06_sentence.lua", name = "sentence", artifacts = { "sentence.json" } },
  { file = "07_cancel.lua",   name = "cancel",   artifacts = { "cancel.json" } },
  { file = "08_report.lua",   name = "report",   artifacts = { "report.json" },
    needs = { "server", "ttft", "prefill", "cache", "sentence", "cancel" } },
}

local keep_going = KEEP_GOING ~= false

local function selected(step)
  if #arg == 0 then return true end
  for i = 1, #arg do
    if step.name == arg[i] or step.file == arg[i] then return true end
  end
  return false
end

for i = 1, #arg do
  local known = false
  for _, step in ipairs(STEPS) do
    if step.name == arg[i] or step.file == arg[i] then known = true end
  end
  if not known then
    local names = {}
    for _, step in ipairs(STEPS) do names[#names + 1] = step.name end
    eprint(string.format("ttftlab lab: unknown step %q; steps are: %s", arg[i], table.concat(names, ", ")))
    os.exit(2)
  end
end

print(string.format("ttftlab lab: server %s, out %s, kb %s%s", SERVER, OUT, KB_DIR or "(bundled)",
  SERVER_LOG and (", server log " .. SERVER_LOG) or ""))

-- failed_need names the first step this one needs that failed or was
-- skipped in this run.
local function failed_need(step, status)
  for _, need in ipairs(step.needs or {}) do
    if status[need] == "FAILED" or status[need] == "skipped" then return need end
  end
end

local results, status, bad = {}, {}, 0
for _, step in ipairs(STEPS) do
  if selected(step) then
    -- A stale artifact from an earlier run must not pass for this run's.
    for _, a in ipairs(step.artifacts) do os.remove(OUT .. "/" .. a) end
    local r = { name = step.name, ms = 0 }
    local need = failed_need(step, status)
    if need or (bad > 0 and not keep_going) then
      r.status = "skipped"
      r.detail = need and ("needs step " .. need .. ", which did not pass") or "an earlier step failed (--keep-going=false)"
    else
      local t0 = now_ms()
      local ok, res = pcall(dofile, step.file)
      r.ms, r.status, r.detail = now_ms() - t0, ok and "ok" or "FAILED", tostring(res)
      if not ok then
        eprint(string.format("step %s failed: %s", step.name, r.detail))
      end
    end
    if r.status ~= "ok" then bad = bad + 1 end
    status[step.name] = r.status
    results[#results + 1] = r
  end
end

print("")
print(string.format("%-9s %-7s %9s  %s", "step", "result", "time", "detail"))
for _, r in ipairs(results) do
  local detail = r.detail:gsub("\n.*", "")
  if #detail > 100 then detail = detail:sub(1, 97) .. "..." end
  print(string.format("%-9s %-7s %7.0f ms  %s", r.name, r.status, r.ms, detail))
end
if bad > 0 then
  print(string.format("\n%d of %d steps did not pass; the artifacts of the others are in %s", bad, #results, OUT))
  os.exit(1)
end
print(string.format("\nall %d steps passed; artifacts in %s; verify with: ttftlab check %s%s", #results, OUT, OUT,
  SERVER_LOG and (" --server-log " .. SERVER_LOG) or ""))
