-- Arithmetic and concatenation metamethods.
local V = {}
V.__index = V
local function v(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return v(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return v(a.x - b.x, a.y - b.y) end
V.__mul = function(a, b)
  if type(a) == "number" then return v(a * b.x, a * b.y) end
  return v(a.x * b, a.y * b)
end
V.__div = function(a, b) return v(a.x / b, a.y / b) end
V.__mod = function(a, b) return v(a.x % b, a.y % b) end
V.__pow = function(a, b) return v(a.x ^ b, a.y ^ b) end
V.__unm = function(a) return v(-a.x, -a.y) end
V.__concat = function(a, b)
  local function s(p) return type(p) == "table" and ("(" .. p.x .. "," .. p.y .. ")") or tostring(p) end
  return s(a) .. s(b)
end
V.__tostring = function(a) return "v(" .. a.x .. ", " .. a.y .. ")" end
local a, b = v(1, 2), v(3, 5)
print(tostring(a + b), tostring(a - b), tostring(a * 2), tostring(3 * a))
print(tostring(b / 2), tostring(b % 2), tostring(a ^ 2), tostring(-a))
print(a .. b, a .. "!", "<" .. b)
