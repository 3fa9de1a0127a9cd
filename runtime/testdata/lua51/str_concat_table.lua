-- table.concat with separators and ranges.
local t = {"a", "b", "c", "d"}
print(table.concat(t), table.concat(t, ", "), table.concat(t, "-", 2, 3))
print(table.concat({}, "x"), table.concat(t, "", 3), table.concat(t, ",", 4, 3))
print(table.concat({1, 2, 3}, "+"))
print(pcall(table.concat, {1, {}, 3}) == false)
