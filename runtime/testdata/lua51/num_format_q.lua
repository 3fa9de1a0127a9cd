-- %q as Lua 5.1 writes it: backslash-newline, \000, \r.
print(string.format("%q", "plain"))
print(string.format("%q", 'say "hi"\\'))
print(string.format("%q", "a\nb"))
print(string.format("%q", "nul\0byte"))
print(string.format("%q", "cr\rlf\ttab"))
print(string.format("%q", 12))
local s = "x\ny\0z\r\"\\"
local back = loadstring("return " .. string.format("%q", s))()
print(back == s)
