-- Step 1: the server's /health and /props, saved as the raw bodies.
local h, h_body, h_status = health()
if h_status ~= 200 or type(h) ~= "table" or h.status ~= "ok" then
  error(string.format("%s/health answered %s %s: the server is not ready", SERVER, tostring(h_status), h_body))
end
write_text("health.json", h_body)

local p, p_body = props()
write_text("props.json", p_body)

local gen = p.default_generation_settings or {}
local line = string.format("health ok; model %s, n_ctx %s, slots %s, build %s",
  tostring(p.model_alias or p.model_path), tostring(gen.n_ctx), tostring(p.total_slots), tostring(p.build_info))
print("server: " .. line)
return line
