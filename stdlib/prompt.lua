-- prompt: building system prompts and chat messages.
--
--   local prompt = require("prompt")
--   prompt.build(system, docs, n, opts) -> string
--   prompt.messages(system, user)       -> { {role="system", content=system},
--                                            {role="user", content=user} }
--   prompt.prepend(text, line)          -> line .. text
--   prompt.first_difference(a, b, opts) -> {tokens=, a_tokens=, b_tokens=,
--                                           same=, at_char=, at_byte=,
--                                           a_prompt=, b_prompt=}
--
-- build(system, docs, n, opts): system followed by the first n docs, each
-- after a separator:
--
--   system .. sep .. doc[1] .. sep .. doc[2] .. ... .. sep .. doc[n]
--
-- sep is opts.sep, by default "\n\n" (a blank line). A doc is a string or a
-- table with a string field text (as kb_docs() returns); trailing white space
-- of each doc is dropped so files ending in a newline do not add extra blank
-- lines. system is used as given. n = 0 gives system alone; n = nil takes all
-- docs. n larger than #docs is an error that says how many docs exist.
--
-- prepend(text, line): line .. text, nothing added; put a "\n" at the end of
-- line yourself when it should be a line of its own. Changing the first line
-- of a prompt changes its first tokens, which defeats prompt caching.
--
-- first_difference(a, b, opts): where two chat prompts first differ in
-- tokens, by the server's own chat template and tokenizer (llama-server's
-- POST /apply-template and POST /tokenize, with the BOS token the server
-- adds): the most prompt cache a server can reuse for b after a. a and b
-- are arrays of messages, or strings taken as already templated prompt
-- text. opts.server is the server's URL (default SERVER). The result:
--   tokens     how many tokens the two share from the start (the index of
--              the first token that differs is tokens + 1)
--   a_tokens, b_tokens   their lengths in tokens
--   same       the token lists are identical
--   at_char    how many UTF-8 characters the two prompt texts share from
--              the start; at_byte the same in bytes
--              (a_prompt:sub(1, at_byte) is the common text). The token
--              difference starts at or before it: a token that spans the
--              first different character differs as a whole.
--   a_prompt, b_prompt   the templated prompt texts

local M = {}

local function doc_text(doc, i)
  if type(doc) == "string" then
    return doc
  end
  if type(doc) == "table" and type(doc.text) == "string" then
    return doc.text
  end
  error(string.format("prompt.build: docs[%d] is a %s, want a string or a table with a string field text",
    i, type(doc)), 3)
end

function M.build(system, docs, n, opts)
  if type(system) ~= "string" then
    error("prompt.build: system must be a string, got " .. type(system), 2)
  end
  if type(docs) ~= "table" then
    error("prompt.build: docs must be an array, got " .. type(docs), 2)
  end
  if n == nil then
    n = #docs
  end
  if type(n) ~= "number" or n < 0 or n ~= math.floor(n) then
    error("prompt.build: n must be a whole number >= 0, got " .. tostring(n), 2)
  end
  if n > #docs then
    error(string.format("prompt.build: asked for %d docs but only %d exist", n, #docs), 2)
  end
  local sep = "\n\n"
  if opts ~= nil and opts.sep ~= nil then
    if type(opts.sep) ~= "string" then
      error("prompt.build: opts.sep must be a string, got " .. type(opts.sep), 2)
    end
    sep = opts.sep
  end
  local parts = { system }
  for i = 1, n do
    local text = doc_text(docs[i], i)
    parts[#parts + 1] = (text:gsub("%s+$", ""))
  end
  return table.concat(parts, sep)
end

function M.messages(system, user)
  if type(system) ~= "string" then
    error("prompt.messages: system must be a string, got " .. type(system), 2)
  end
  if type(user) ~= "string" then
    error("prompt.messages: user must be a string, got " .. type(user), 2)
  end
  return {
    { role = "system", content = system },
    { role = "user", content = user },
  }
end

function M.prepend(text, line)
  if type(text) ~= "string" or type(line) ~= "string" then
    error(string.format("prompt.prepend: text and line must be strings, got %s and %s",
      type(text), type(line)), 2)
  end
  return line .. text
end

-- call POSTs body to path on server through the host's post(); it
-- returns the decoded answer, or nil and a message. On SERVER the path
-- goes to post() as it is, so the host joins it to the endpoint (a base
-- ending in /v1 included) and sends the endpoint's key and headers.
local function call(server, path, body)
  local ok, decoded, text, status = pcall(post, server == SERVER and path or server .. path, body)
  if not ok then
    -- post's message carries this file's position; the caller's is added
    -- when the message is raised.
    return nil, (tostring(decoded):gsub("^[^\n]-:%d+: ", ""))
  end
  if status ~= 200 or decoded == nil then
    return nil, string.format("POST %s%s answered %d: %s (this needs llama-server's %s)",
      server, path, status, text:sub(1, 200), path)
  end
  return decoded
end

-- prompt_text returns x as the server's template renders it.
local function prompt_text(server, x, name)
  if type(x) == "string" then
    return x
  end
  if type(x) ~= "table" then
    return nil, string.format("%s must be an array of messages or a prompt string, got %s", name, type(x))
  end
  for i = 1, #x do
    if type(x[i]) ~= "table" or type(x[i].role) ~= "string" then
      return nil, string.format("%s[%d] must be a message {role=, content=}, got %s", name, i, type(x[i]))
    end
  end
  local r, err = call(server, "/apply-template", { messages = x })
  if not r then
    return nil, err
  end
  if type(r.prompt) ~= "string" then
    return nil, "/apply-template answered without a string prompt"
  end
  return r.prompt
end

local function tokenize(server, text)
  local r, err = call(server, "/tokenize", { content = text, add_special = true })
  if not r then
    return nil, err
  end
  if type(r.tokens) ~= "table" then
    return nil, "/tokenize answered without a tokens array"
  end
  return r.tokens
end

-- common_prefix counts the equal leading items of two arrays.
local function common_prefix(x, y)
  local n = 0
  while n < #x and n < #y and x[n + 1] == y[n + 1] do
    n = n + 1
  end
  return n
end

-- common_bytes is the length of the common leading text of a and b, cut
-- back to a whole UTF-8 character.
local function common_bytes(a, b)
  local n = 0
  while n < #a and n < #b and a:byte(n + 1) == b:byte(n + 1) do
    n = n + 1
  end
  while n > 0 and n < #a and (a:byte(n + 1) or 0) >= 128 and a:byte(n + 1) < 192 do
    n = n - 1
  end
  return n
end

function M.first_difference(a, b, opts)
  if opts ~= nil and type(opts) ~= "table" then
    error("prompt.first_difference: opts must be a table, got " .. type(opts), 2)
  end
  local server = opts and opts.server or SERVER
  if type(server) ~= "string" or server == "" then
    error("prompt.first_difference: opts.server (or SERVER) must be the server's URL, got " .. tostring(server), 2)
  end
  server = server:gsub("/+$", "")
  local texts, lists = {}, {}
  for i, x in ipairs({ a, b }) do
    local name = i == 1 and "a" or "b"
    local text, err = prompt_text(server, x, name)
    local tokens
    if text then
      tokens, err = tokenize(server, text)
    end
    if not tokens then
      error("prompt.first_difference: " .. err, 2)
    end
    texts[i], lists[i] = text, tokens
  end
  local n = common_prefix(lists[1], lists[2])
  local at_byte = common_bytes(texts[1], texts[2])
  local _, at_char = texts[1]:sub(1, at_byte):gsub("[^\128-\191]", "")
  return {
    tokens = n, a_tokens = #lists[1], b_tokens = #lists[2],
    same = n == #lists[1] and n == #lists[2],
    at_char = at_char, at_byte = at_byte,
    a_prompt = texts[1], b_prompt = texts[2],
  }
end

return M
