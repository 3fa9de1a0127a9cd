-- tonumber as Lua 5.1's strtod-based conversion.
print(tonumber("1e5"), tonumber("1E-2"), tonumber("0x10"), tonumber("0XfF"))
print(tonumber("  12  "), tonumber("\t3.5\n"), tonumber("12a"), tonumber(""), tonumber(" "))
print(tonumber("5."), tonumber(".5"), tonumber("-7"), tonumber("+7"), tonumber("1e"))
print(tonumber("017"), tonumber("1e400"), tonumber("-0x10"))
print(tonumber("10", 2), tonumber("ff", 16), tonumber("zz", 36), tonumber("8", 8), tonumber("777", 8))
print(tonumber(nil), tonumber(true), tonumber({}) == nil, tonumber(42))
