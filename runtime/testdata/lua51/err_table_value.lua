-- Non-string error values come back as they were raised.
local obj = {code = 42}
local ok, e = pcall(error, obj)
print(ok, e == obj, e.code)
ok, e = pcall(function() error(obj, 2) end)
print(ok, e == obj)
ok, e = pcall(function() error(true) end)
print(ok, e, type(e))
local mt = {__tostring = function(t) return "E(" .. t.code .. ")" end}
ok, e = pcall(error, setmetatable({code = 7}, mt))
print(ok, tostring(e))
