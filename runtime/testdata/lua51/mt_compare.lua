-- __eq, __lt, __le.
local mt = {}
mt.__eq = function(a, b) return a.k == b.k end
mt.__lt = function(a, b) return a.k < b.k end
mt.__le = function(a, b) return a.k <= b.k end
local function o(k) return setmetatable({k = k}, mt) end
local a, b, c = o(1), o(2), o(1)
print(a == c, a == b, a ~= b, rawequal(a, c))
print(a < b, b < a, a <= c, b <= a, a > b, b >= a)
-- __eq is not called for different types
print(a == 1, a == "x")
