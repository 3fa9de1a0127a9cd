-- NaN: not equal to itself; printed as glibc prints it.
local nan = 0 / 0
print(nan ~= nan, nan == nan)
print(nan, -nan)
print(tostring(math.huge - math.huge))
print(string.format("%f %5.1f %g", 1/0, -1/0, 0/0))
print(string.format("%e|%+f|% f|%-6f|%6g", 1/0, 1/0, 1/0, 1/0, -(0/0)))
