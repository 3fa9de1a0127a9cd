-- Step 1: which kind of server answers and what it offers (server.json),
-- its health answer, and, on llama.cpp, /props, saved as the raw bodies.
-- Other kinds have no /props: the step says so and props.json is not
-- written (steps.json then does not list it).
local conf = dofile("labconf.lua")
local caps = conf.caps

write_json("server.json", {
  kind = caps.kind, evidence = caps.evidence, version = caps.version or json_null,
  health = caps.health, caps = caps,
})

if caps.kind ~= "llama.cpp" then
  local status, body = get(caps.health)
  if status ~= 200 then
    error(string.format("%s%s answered %s %s: the server is not ready", SERVER, caps.health, tostring(status), body))
  end
  write_json("health.json", { status = "ok", path = caps.health, http_status = status })
  local line = string.format("%s server (%s); %s ok; no /props on this kind", caps.kind, caps.evidence, caps.health)
  print("server: " .. line)
  return { detail = line, not_written = { "props.json" } }
end

local h, h_body, h_status = health()
if h_status ~= 200 or type(h) ~= "table" or h.status ~= "ok" then
  error(string.format("%s/health answered %s %s: the server is not ready", SERVER, tostring(h_status), h_body))
end
write_text("health.json", h_body)

local p, p_body = props()
write_text("props.json", p_body)

local gen = p.default_generation_settings or {}
local line = string.format("llama.cpp; health ok; model %s, n_ctx %s, slots %s, build %s",
  tostring(p.model_alias or p.model_path), tostring(gen.n_ctx), tostring(p.total_slots), tostring(p.build_info))
print("server: " .. line)
return line
