-- pcall returns everything the function returns; calls of non-functions fail.
print(pcall(function(...) return ... end, 1, nil, 3))
print(select("#", pcall(function() end)))
print(select("#", pcall(function() return nil, nil end)))
print(pcall(pcall, error, "x"))
local ok, e = pcall(42)
print(ok)
print(pcall(setmetatable({}, {__call = function(self, a) return "called", a end}), 9))
