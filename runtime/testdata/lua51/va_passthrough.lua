-- Varargs through calls, tables and multiple assignment.
local function id(...) return ... end
local function pack(...) return {n = select("#", ...), ...} end
local p = pack(id(1, nil, 3))
print(p.n, p[1], p[2], p[3])
local a, b, c, d = id(1, 2)
print(a, b, c, d)
print((id(1, 2, 3)))
local t = {id(1, 2), id(3, 4)}
print(#t, t[1], t[2], t[3])
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...) or 0) end
  return s
end
print(sum(1, 2, nil, 4))
print(string.format("%d-%d-%d", id(7, 8, 9)))
