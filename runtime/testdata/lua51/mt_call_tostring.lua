-- __call, __tostring, __metatable.
local callable = setmetatable({}, {__call = function(self, a, b) return "called with", a, b end})
print(callable(1, 2))
local named = setmetatable({}, {__tostring = function() return "I am named" end})
print(named, tostring(named))
local locked = setmetatable({}, {__metatable = "locked"})
print(getmetatable(locked))
print(pcall(setmetatable, locked, {}))
print(getmetatable("abc").__index == string)
