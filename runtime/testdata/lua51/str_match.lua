-- string.match and gmatch with classes and captures.
print(("key = value"):match("(%w+)%s*=%s*(%w+)"))
print(("2024-01-15"):match("(%d+)-(%d+)-(%d+)"))
print(("  trim me  "):match("^%s*(.-)%s*$"))
print(("abc"):match("()b()"))
print(("hello"):match(".-(l+)"))
print(("x=1, y=22, z=333"):match("y=(%d+)"))
local words = {}
for w in ("one two  three"):gmatch("%a+") do words[#words + 1] = w end
print(#words, table.concat(words, "|"))
for k, v in ("a=1,b=2"):gmatch("(%w)=(%w)") do print(k, v) end
print(("%d"):match("%%d"), ("f(x)"):match("%((.-)%)"))
print(("THE (quick) fox"):find("%((%a+)%)"))
print(("hello world"):match("^(%w+)"), ("[test]"):match("^%[(.*)%]$"))
