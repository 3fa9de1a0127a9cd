-- Errors raised inside metamethods are caught by the caller's pcall.
local t = setmetatable({}, {
  __index = function(_, k) error("no field " .. k, 0) end,
  __add = function() error({op = "add"}) end,
})
print(pcall(function() return t.missing end))
local ok, e = pcall(function() return t + 1 end)
print(ok, e.op)
local n = 0
local function bump() n = n + 1 end
for i = 1, 3 do pcall(function() bump(); return t.x end) end
bump()
print(n)
