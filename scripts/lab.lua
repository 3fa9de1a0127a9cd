-- The whole lab: runs every step in order, keeps going past a failed step,
-- prints a summary table, and exits non-zero when any step failed.
--   ttftlab lab [flags] [-- STEP...]   (STEP: a name such as "prefill" to run only those)
local STEPS = {
  { file = "01_server.lua",   name = "server",   artifacts = { "health.json", "props.json" } },
  { file = "02_stream.lua",   name = "stream",   artifacts = { "sse_raw.txt", "chunks.jsonl" } },
  { file = "03_ttft.lua",     name = "ttft",     artifacts = { "ttft.json" } },
  { file = "04_prefill.lua",  name = "prefill",  artifacts = { "prefill.json" } },
  { file = "05_cache.lua",    name = "cache",    artifacts = { "cache.json" } },
  { file = "06_sentence.lua", name = "sentence", artifacts = { "sentence.json" } },
  { file = "07_cancel.lua",   name = "cancel",   artifacts = { "cancel.json" } },
  { file = "08_report.lua",   name = "report",   artifacts = { "report.json" } },
}

local function selected(step)
  if #arg == 0 then return true end
  for i = 1, #arg do
    if step.name == arg[i] or step.file == arg[i] then return true end
  end
  return false
end

print(string.format("ttftlab lab: server %s, out %s, kb %s%s", SERVER, OUT, KB_DIR or "(bundled)",
  SERVER_LOG and (", server log " .. SERVER_LOG) or ""))

local results, failed = {}, 0
for _, step in ipairs(STEPS) do
  if selected(step) then
    -- A stale artifact from an earlier run must not pass for this run's.
    for _, a in ipairs(step.artifacts) do os.remove(OUT .. "/" .. a) end
    local t0 = now_ms()
    local ok, res = pcall(dofile, step.file)
    local r = { name = step.name, ok = ok, ms = now_ms() - t0, detail = tostring(res) }
    if not ok then
      failed = failed + 1
      io.stderr:write(string.format("step %s failed: %s\n", step.name, r.detail))
    end
    results[#results + 1] = r
  end
end

print("")
print(string.format("%-9s %-6s %9s  %s", "step", "result", "time", "detail"))
for _, r in ipairs(results) do
  local detail = r.detail:gsub("\n.*", "")
  if #detail > 100 then detail = detail:sub(1, 97) .. "..." end
  print(string.format("%-9s %-6s %7.0f ms  %s", r.name, r.ok and "ok" or "FAILED", r.ms, detail))
end
if failed > 0 then
  print(string.format("\n%d of %d steps failed; artifacts of the others are in %s", failed, #results, OUT))
  os.exit(1)
end
print(string.format("\nall %d steps passed; artifacts in %s; verify with: ttftlab check %s%s", #results, OUT, OUT,
  SERVER_LOG and (" --server-log " .. SERVER_LOG) or ""))
