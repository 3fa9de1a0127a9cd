-- The whole lab: runs every step in order and prints a summary table.
--   ttftlab lab [flags] [-- STEP...]   (STEP: a name such as "prefill" to run only those)
-- Each step writes its artifacts as soon as it ends, so a later failure
-- loses nothing. After a failed step the lab goes on with the steps that do
-- not depend on it (KEEP_GOING, the --keep-going flag, default true); steps
-- that need a failed step's artifacts are skipped. It exits 1 when any step
-- failed or was skipped.
--
-- With PREFLIGHT set (ttftlab lab does so before it starts a server), it
-- only checks its inputs: the step names and the knowledge base.
local STEPS = {
  { file = "01_server.lua",   name = "server",   artifacts = { "health.json", "props.json" } },
  { file = "02_stream.lua",   name = "stream",   artifacts = { "sse_raw.txt", "chunks.jsonl" } },
  { file = "03_ttft.lua",     name = "ttft",     artifacts = { "ttft.json" } },
  { file = "04_prefill.lua",  name = "prefill",  artifacts = { "prefill.json" }, docs = 12 },
  { file = "05_cache.lua",    name = "cache",    artifacts = { "cache.json" }, docs = 1 },
  { file = "06_sentence.lua", name = "sentence", artifacts = { "sentence.json" } },
  { file = "07_cancel.lua",   name = "cancel",   artifacts = { "cancel.json" } },
  { file = "08_bargein.lua",  name = "bargein",  artifacts = { "bargein.json" }, docs = 12 },
  { file = "09_prefix.lua",   name = "prefix",   artifacts = { "prefix.json" }, docs = 4 },
  { file = "10_report.lua",   name = "report",   artifacts = { "report.json" },
    needs = { "server", "ttft", "prefill", "cache", "sentence", "cancel", "bargein", "prefix" } },
}
local REPORT = STEPS[#STEPS]

local keep_going = KEEP_GOING ~= false

local function step_names()
  local names = {}
  for _, step in ipairs(STEPS) do names[#names + 1] = step.name end
  return table.concat(names, ", ")
end

local function find_step(name)
  for _, step in ipairs(STEPS) do
    if step.name == name or step.file == name then return step end
  end
end

local selected = {}
for i = 1, #arg do
  local step = find_step(arg[i])
  if not step then
    eprint(string.format("ttftlab lab: unknown step %q; steps are: %s", arg[i], step_names()))
    os.exit(2)
  end
  selected[step] = true
end
local function is_selected(step) return #arg == 0 or selected[step] end

-- The knowledge base must be there, with as many documents as the chosen
-- steps need, before anything runs.
for _, step in ipairs(STEPS) do
  if is_selected(step) and step.docs then
    dofile("labconf.lua").need_docs(step.docs)
  end
end
if PREFLIGHT then return end

local where = SCRIPT_DIR == "(embedded)" and "the lab built into ttftlab" or ("the lab in " .. SCRIPT_DIR)
print(string.format("ttftlab lab (%s): server %s, out %s, kb %s%s", where, SERVER, OUT, KB_DIR or "(bundled)",
  SERVER_LOG and (", server log " .. SERVER_LOG) or ""))

local function exists(name)
  local f = io.open(OUT .. "/" .. name, "r")
  if f then f:close() end
  return f ~= nil
end

-- failed_need names the first step this one needs that failed or was
-- skipped in this run.
local function failed_need(step, status)
  for _, need in ipairs(step.needs or {}) do
    if status[need] == "FAILED" or status[need] == "skipped" then return need end
  end
end

local results, status, bad = {}, {}, 0
local function run(step)
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

for _, step in ipairs(STEPS) do
  if is_selected(step) then
    -- A stale artifact from an earlier run must not pass for this run's.
    for _, a in ipairs(step.artifacts) do os.remove(OUT .. "/" .. a) end
    run(step)
  end
end

-- A partial run changed some of the report's sources: rebuild the report
-- from what is there, or drop it when a source is missing, so no stale
-- report outlives its numbers.
local missing = {}
for _, step in ipairs(STEPS) do
  for _, a in ipairs(step.artifacts) do
    if step ~= REPORT and not exists(a) then missing[#missing + 1] = a end
  end
end
if not is_selected(REPORT) then
  os.remove(OUT .. "/report.json")
  if bad == 0 and #missing == 0 then run(REPORT) end
end

print("")
print(string.format("%-9s %-7s %9s  %s", "step", "result", "time", "detail"))
for _, r in ipairs(results) do
  local detail = r.detail:gsub("\n.*", "")
  if #detail > 100 then detail = detail:sub(1, 97) .. "..." end
  print(string.format("%-9s %-7s %7.0f ms  %s", r.name, r.status, r.ms, detail))
end

local function steps(n) return n == 1 and "1 step" or (n .. " steps") end
if bad > 0 then
  print(string.format("\n%s of %d did not pass; the artifacts of the others are in %s", steps(bad), #results, OUT))
  os.exit(1)
end
local passed = (#results == #STEPS) and ("all " .. steps(#results)) or steps(#results)
if #missing > 0 then
  print(string.format("\n%s passed; artifacts in %s. The folder lacks %s from other steps, so it holds no report;\n" ..
    "run the whole lab (%s lab) for a folder that `check` passes.", passed, OUT, table.concat(missing, ", "), TTFTLAB))
  return
end
print(string.format("\n%s passed; artifacts in %s; verify with: %s check %s%s", passed, OUT, TTFTLAB, OUT,
  SERVER_LOG and (" --server-log " .. SERVER_LOG) or ""))
