-- What a run measured: the model and the server's settings, for the
-- lab's report and the load's load.json. Loaded with dofile("runinfo.lua").
local M = {}

-- The model the numbers belong to, from step 1's /props. A synthetic model
-- (`ttftlab model synth`) names itself in its chat template, which /props
-- shows; any other model is named by its alias or file name. A server
-- without /props (vLLM, SGLang, Ollama, a hosted API) is named by the
-- model every request asks for (--model, or the one /v1/models lists).
function M.model_of(p)
  local path = type(p.model_path) == "string" and p.model_path or nil
  local synthetic = type(p.chat_template) == "string" and p.chat_template:match("ttftlab synthetic model ([^%s:]+):")
  local name = synthetic or (type(p.model_alias) == "string" and p.model_alias ~= path and p.model_alias) or
    (path and (path:match("([^/]+)%.gguf$") or path:match("[^/]+$")))
  if not name then
    local ep = server_info().endpoint
    if type(ep) == "table" and type(ep.model) == "string" and ep.model ~= "" then name = ep.model end
  end
  return json_object({ name = name or json_null, path = path or json_null, synthetic = type(synthetic) == "string" })
end

-- The server's settings: the context and slots /props reports, and, for a
-- server ttftlab started, its threads and host-memory cache from the
-- command line it was started with (unknown otherwise: null).
local function arg_after(args, names)
  for i = 1, #args - 1 do
    for _, n in ipairs(names) do
      if args[i] == n then return tonumber(args[i + 1]) or args[i + 1] end
    end
  end
  return json_null
end

function M.server_of(p)
  local gen = type(p.default_generation_settings) == "table" and p.default_generation_settings or {}
  local info = server_info()
  local args = info.tracked and info.args or nil
  return json_object({
    n_ctx = gen.n_ctx or json_null,
    slots = p.total_slots or json_null,
    threads = args and arg_after(args, { "-t", "--threads" }) or json_null,
    cache_ram = args and arg_after(args, { "--cache-ram", "-cram" }) or json_null,
    args = args and json_array(args) or json_null,
    build = p.build_info or json_null,
    -- how ttftlab reached it: the key only as "set from SOURCE"
    endpoint = info.endpoint or json_null,
    kind = server_caps().kind,
  })
end

return M
