-- Lexical scope, shadowing and multiple assignment order.
local x = 1
do local x = 2; print(x) end
print(x)
local a, b = 1, 2
a, b = b, a
print(a, b)
local t = {}
local i = 1
t[i], i = 20, i + 1
print(i, t[1], t[2])
local function shadow(x) local x = x * 10; return x end
print(shadow(3), x)
