-- The whole lab: runs every step in order and prints a summary table.
--   ttftlab lab [flags] [-- STEP...]   (STEP: a name such as "prefill" to run only those)
-- Each step writes its artifacts as soon as it ends, so a later failure
-- loses nothing. After a failed step the lab goes on with the steps that do
-- not depend on it (KEEP_GOING, the --keep-going flag, default true); steps
-- that need a step that did not pass are skipped. steps.json records every
-- step's status: passed, failed, skipped (with the reason) or not run. The
-- lab exits 1 when any step failed.
-- A step that ran passes only when `ttftlab check`'s rules for the files
-- it wrote pass (check_artifacts): their failures fail the step and are
-- printed under it. The lab ends with check on the whole folder, and exits
-- 1 when check fails it, as check would.
--
-- With PREFLIGHT set (ttftlab lab does so before it starts a server), it
-- only checks its inputs: the step names and the knowledge base; and it
-- returns what the chosen steps need of the command: {tts = true} when one
-- speaks (tts = true in its row), so ttftlab starts a speech engine
-- (--tts default) unless --tts names one; {stt = true} when one listens to
-- a caller (stt = true), so ttftlab starts a speech-to-text engine (--stt
-- default) unless --stt names one.
-- requires names what a step needs of the server (labconf.lacks says
-- which server lacks it, and why): a step whose server lacks one is
-- skipped with the reason, never failed, never passed without measuring.
local STEPS = {
  { file = "01_server.lua",   name = "server",   artifacts = { "server.json", "health.json", "props.json" } },
  { file = "02_stream.lua",   name = "stream",   artifacts = { "sse_raw.txt", "chunks.jsonl" } },
  { file = "03_ttft.lua",     name = "ttft",     artifacts = { "ttft.json" } },
  { file = "04_prefill.lua",  name = "prefill",  artifacts = { "prefill.json" }, docs = 12,
    requires = { "prompt_tokens" } },
  { file = "05_cache.lua",    name = "cache",    artifacts = { "cache.json" }, docs = 1,
    requires = { "prompt_tokens", "cached_tokens" } },
  { file = "06_sentence.lua", name = "sentence", artifacts = { "sentence.json" } },
  { file = "07_cancel.lua",   name = "cancel",   artifacts = { "cancel.json" } },
  { file = "08_bargein.lua",  name = "bargein",  artifacts = { "bargein.json" }, docs = 6,
    requires = { "prompt_tokens", "cached_tokens", "flush", "busy_evidence" } },
  { file = "09_prefix.lua",   name = "prefix",   artifacts = { "prefix.json" }, docs = 2,
    requires = { "prompt_tokens", "cached_tokens" } },
  { file = "10_audio.lua",    name = "audio",    artifacts = { "audio.json" }, tts = true },
  -- The report copies nothing of the call's (its figures are in
  -- runs.json): a folder without call.json still gets a report.
  { file = "11_call.lua",     name = "call",     artifacts = { "call.json" }, tts = true, stt = true, unreported = true },
  -- A speech-to-speech session, only with --realtime (skipped without
  -- it); the report copies nothing of it either.
  { file = "12_realtime.lua", name = "realtime", artifacts = { "realtime.json" }, unreported = true },
  -- The report summarises what the other steps measured and names those
  -- that did not (skipped, failed): it needs none of them to pass.
  { file = "13_report.lua",   name = "report",   artifacts = { "report.json" } },
}
local REPORT = STEPS[#STEPS]

local keep_going = KEEP_GOING ~= false

local function step_names()
  local names = {}
  for _, step in ipairs(STEPS) do names[#names + 1] = step.name end
  return names
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
    local near = require("options").suggest(arg[i], step_names())
    eprint(string.format("ttftlab lab: unknown step %q%s; steps are: %s", arg[i],
      near and string.format(" (did you mean %q?)", near) or "", table.concat(step_names(), ", ")))
    os.exit(2)
  end
  selected[step] = true
end
local function is_selected(step) return #arg == 0 or selected[step] end

-- The knowledge base must be there, with as many documents as the chosen
-- steps need, before anything runs.
for _, step in ipairs(STEPS) do
  if is_selected(step) and step.docs then
    dofile("labconf.lua").need_docs(step.docs, step.name)
  end
end
if PREFLIGHT then
  local tts, stt = false, false
  for _, step in ipairs(STEPS) do
    if is_selected(step) and step.tts then tts = true end
    if is_selected(step) and step.stt then stt = true end
  end
  return { tts = tts, stt = stt }
end

local where = SCRIPT_DIR == "(embedded)" and "the lab built into ttftlab" or ("the lab in " .. SCRIPT_DIR)
print(string.format("ttftlab lab (%s): server %s, out %s, kb %s%s", where, SERVER, OUT, KB_DIR or "(bundled)",
  SERVER_LOG and (", server log " .. SERVER_LOG) or ""))

local function exists(name)
  local f = io.open(OUT .. "/" .. name, "r")
  if f then f:close() end
  return f ~= nil
end

-- Every step's status in this run, in order: passed, failed, skipped (with
-- the reason) or not run (not selected). steps.json is rewritten as each
-- step ends, so an interrupted lab still says what it did. The counts
-- below come from this table, never from counters kept on the side.
local record = {}
for i, step in ipairs(STEPS) do
  local files = json_array()
  for j, a in ipairs(step.artifacts) do files[j] = a end
  record[i] = { name = step.name, status = "not run", ms = 0, artifacts = files }
  step.record = record[i]
end
-- api is the streaming API every step's requests used (--api), so that
-- `ttftlab check` reads sse_raw.txt as what it is.
local function save() write_json("steps.json", { api = API or "chat", kb = KB_DIR, steps = record }) end

local function count(status)
  local n = 0
  for _, r in ipairs(record) do
    if r.status == status then n = n + 1 end
  end
  return n
end

-- blocked names why a step cannot run: a step it needs failed or was
-- skipped in this run (one not run leaves its earlier artifacts, which the
-- step reads), or an earlier step failed and --keep-going is off.
local function blocked(step)
  for _, need in ipairs(step.needs or {}) do
    local r = find_step(need).record
    if r.status == "failed" or r.status == "skipped" then
      return string.format("needs step %s, which %s", need, r.status)
    end
  end
  if not keep_going and count("failed") > 0 then return "an earlier step failed (--keep-going=false)" end
  for _, need in ipairs(step.requires or {}) do
    local why = dofile("labconf.lua").lacks(need)
    if why then return why end
  end
end

-- fail_lines are the FAIL lines of check's outcomes, as check prints them.
local function fail_lines(outcomes)
  local lines = {}
  for _, o in ipairs(outcomes) do
    if o.status == "FAIL" then lines[#lines + 1] = o.line end
  end
  return lines
end

-- failures are the FAIL lines that failed each step, printed under it.
local failures = {}

-- verify runs check's rules on the files of a step that passed: any
-- failure fails the step, as it fails `ttftlab check` on the folder.
local function verify(step)
  local r = step.record
  local lines = fail_lines(check_artifacts(r.artifacts))
  if #lines == 0 then return end
  failures[step.name] = lines
  r.status, r.detail = "failed", table.concat(lines, "\n")
  eprint(string.format("step %s failed ttftlab check:\n  %s", step.name, table.concat(lines, "\n  ")))
  save()
end

-- A step ends by returning its summary line; it may instead return
-- {skip = "reason"} when the server cannot do what it measures, or
-- {detail = line, not_written = {file, ...}} when it passed without files
-- its kind of server cannot give (steps.json then does not list them).
local function run(step)
  local r = step.record
  -- Asking the server what it offers can fail too (a server that died
  -- mid-lab): the step then failed, and the lab goes on to its summary.
  local asked, why = pcall(blocked, step)
  if not asked then
    r.status, r.detail = "failed", "cannot tell whether the server can run it: " .. tostring(why)
    eprint(string.format("step %s failed: %s", step.name, r.detail))
  elseif why then
    r.status, r.detail = "skipped", why
  else
    local t0 = now_ms()
    local ok, res = pcall(dofile, step.file)
    r.ms = now_ms() - t0
    if not ok then
      r.status, r.detail = "failed", tostring(res)
      eprint(string.format("step %s failed: %s", step.name, r.detail))
    elseif type(res) == "table" and res.skip then
      r.status, r.detail = "skipped", tostring(res.skip)
    elseif type(res) == "table" then
      local drop = {}
      for _, f in ipairs(res.not_written or {}) do drop[f] = true end
      local kept = json_array()
      for _, a in ipairs(r.artifacts) do
        if not drop[a] then kept[#kept + 1] = a end
      end
      r.status, r.detail, r.artifacts = "passed", res.detail ~= nil and tostring(res.detail) or nil, kept
    else
      r.status, r.detail = "passed", res ~= nil and tostring(res) or nil
    end
  end
  save()
  if r.status == "passed" then verify(step) end
end

-- A stale artifact from an earlier run must not pass for this run's, nor
-- be read by the checks of a step before the one that writes it. The
-- report copies the other steps' numbers: a partial run rebuilds it at the
-- end or leaves none (below).
for _, step in ipairs(STEPS) do
  if is_selected(step) or step == REPORT then
    for _, a in ipairs(step.artifacts) do os.remove(OUT .. "/" .. a) end
  end
end
save()
for _, step in ipairs(STEPS) do
  if is_selected(step) then run(step) end
end

-- A partial run changed some of the report's sources: rebuild the report
-- from what is there when every source is, or drop it, so no stale report
-- outlives its numbers.
local missing = {}
for _, step in ipairs(STEPS) do
  for _, a in ipairs(step.record.status == "passed" and step.record.artifacts or step.artifacts) do
    if step ~= REPORT and not step.unreported and not exists(a) then missing[#missing + 1] = a end
  end
end
if not is_selected(REPORT) then
  if count("failed") == 0 and count("skipped") == 0 and #missing == 0 then
    run(REPORT)
  else
    REPORT.record.detail = #missing > 0 and ("the folder lacks " .. table.concat(missing, ", ")) or
      "a step of this run did not pass"
    save()
  end
end

print("")
print(string.format("%-9s %-8s %9s  %s", "step", "result", "time", "detail"))
for _, r in ipairs(record) do
  if r.status ~= "not run" then
    local detail = (r.detail or ""):gsub("\n.*", "")
    if #detail > 100 then detail = detail:sub(1, 97) .. "..." end
    if failures[r.name] then detail = "ttftlab check fails its files:" end
    print(string.format("%-9s %-8s %7.0f ms  %s", r.name, r.status, r.ms, detail))
    for _, line in ipairs(failures[r.name] or {}) do print(string.rep(" ", 31) .. line) end
  end
end

local function steps(n) return n == 1 and "1 step" or (n .. " steps") end
local function names(status)
  local out = {}
  for _, r in ipairs(record) do
    if r.status == status then out[#out + 1] = r.name end
  end
  return table.concat(out, ", ")
end
local failed, skipped, passed, not_run = count("failed"), count("skipped"), count("passed"), count("not run")
local ran = #record - not_run
local others = {}
if passed > 0 then others[#others + 1] = passed .. " passed" end
if skipped > 0 then others[#others + 1] = skipped .. " skipped (" .. names("skipped") .. ")" end
if not_run > 0 then others[#others + 1] = not_run .. " not run" end
if failed > 0 then
  print(string.format("\n%d of %s failed (%s); %s. Artifacts of the others are in %s", failed, steps(ran),
    names("failed"), table.concat(others, ", "), OUT))
  os.exit(1)
end
-- Every step passed its own checks; the folder as `ttftlab check` sees it
-- may still hold a failure no step of this run wrote (a file left by a
-- step not run): the lab then fails as check does.
local folder = fail_lines(check_artifacts())
if #folder > 0 then
  print(string.format("\n%s, but ttftlab check fails %s:\n  %s", table.concat(others, ", "), OUT, table.concat(folder, "\n  ")))
  os.exit(1)
end
local head = (passed == #record) and ("all " .. steps(passed) .. " passed") or table.concat(others, ", ")
print(string.format("\n%s; artifacts in %s; verify with: %s check %s%s", head, OUT, TTFTLAB, OUT,
  SERVER_LOG and (" --server-log " .. SERVER_LOG) or ""))
if REPORT.record.status == "not run" and #missing > 0 then
  print(string.format("The folder lacks %s from other steps, so it holds no report.json; run the whole lab (%s lab) for one.",
    table.concat(missing, ", "), TTFTLAB))
end
