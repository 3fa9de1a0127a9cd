-- prompt: building system prompts and chat messages.
--
--   local prompt = require("prompt")
--   prompt.build(system, docs, n, opts) -> string
--   prompt.messages(system, user)       -> { {role="system", content=system},
--                                            {role="user", content=user} }
--   prompt.prepend(text, line)          -> line .. text
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

return M
