-- Escapes in literals and bytes.
local s = "a\tb\\c\"d\'e\065\10x"
print(#s, s:byte(1, -1))
print("\97\98\99", "line1\
line2")
print([[long
string]], [==[with ]] inside]==])
