-- __index and __newindex as tables and functions; rawget/rawset.
local defaults = {color = "red", size = 1}
local t = setmetatable({}, {__index = defaults})
print(t.color, t.size, t.other)
t.color = "blue"
print(t.color, defaults.color, rawget(t, "size"))
local log = {}
local proxy = setmetatable({}, {
  __index = function(_, k) return k .. "!" end,
  __newindex = function(tbl, k, v) log[#log + 1] = k .. "=" .. tostring(v); rawset(tbl, k, v) end,
})
print(proxy.abc)
proxy.x = 1
proxy.x = 2
print(proxy.x, table.concat(log, ","))
