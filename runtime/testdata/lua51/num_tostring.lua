-- Numbers print as Lua 5.1's "%.14g".
print(1, -1, 0, 1.5, -2.25, 100, 1e14 - 1)
print(1e14, 1e15, 1e16, 123456789012345, 2^53, 2^63, -2^63)
print(0.1, 1/3, 2/3, 1e-5, 1.5e-4, 123.456, 1e100, 1e-300)
print(1/0, -1/0, math.huge, -math.huge)
local z = 0
print(-z, z)
print(tostring(1e15), tostring(0.1 + 0.2), tostring(100 / 3))
print(3.0, 3.5 - 0.5, 7 / 7, 2^10)
