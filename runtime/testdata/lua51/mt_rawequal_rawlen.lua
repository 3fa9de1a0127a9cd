-- raw functions skip metamethods.
local t = setmetatable({1, 2, 3}, {__index = function() return "meta" end, __eq = function() return true end})
print(rawget(t, 10), t[10])
local u = setmetatable({}, getmetatable(t))
print(t == u, rawequal(t, u))
print(#t, select("#", unpack(t)))
