-- len, sub, upper, lower, rep, reverse, byte, char.
local s = "Hello, Lua"
print(#s, s:len(), s:upper(), s:lower())
print(s:sub(1, 5), s:sub(-3), s:sub(-3, -2), s:sub(8), s:sub(0), s:sub(20), s:sub(5, 2))
print(("ab"):rep(3), ("ab"):rep(0), ("x"):rep(1))
print(s:reverse())
print(s:byte(1), s:byte(-1), s:byte(1, 3))
print(string.char(72, 105), string.char())
print(("%d"):format(5))
