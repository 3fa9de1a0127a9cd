-- xpcall with a handler: the handler sees the error; shared locals stay shared.
local hits = 0
local function hit() hits = hits + 1 end
local function handler(e) hit(); return "handled: " .. tostring(e) end
print(xpcall(function() hit(); error("boom", 0) end, handler))
hit()
print(hits)
print(xpcall(function() return 1, 2, 3 end, handler))
print(hits)
