-- string.find: plain, patterns, captures, init.
local s = "the quick brown fox"
print(s:find("quick"))
print(s:find("o", 1, true), s:find("o", 14))
print(s:find("(%a+) (%a+)"))
print(s:find("x", -3), s:find("^the"), s:find("^quick"))
print(s:find("fox$"), s:find(""), s:find("", 100))
print(("a.b"):find(".", 1, true), ("a.b"):find("%."))
print(s:find("(o)(%w)", 1))
print(("[x]"):find("[", 1, true))
