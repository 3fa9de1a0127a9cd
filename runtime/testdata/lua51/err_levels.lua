-- error(message, level): the position each level names.
local function inner(level) error("boom", level) end
local function outer(level) inner(level) end
for _, level in ipairs({0, 1, 2, 3}) do
  print(level, pcall(outer, level))
end
print(pcall(inner))
local function direct() error("direct") end
print(pcall(direct))
