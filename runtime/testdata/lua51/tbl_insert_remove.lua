-- table.insert and table.remove.
local t = {}
table.insert(t, "a")
table.insert(t, "c")
table.insert(t, 2, "b")
table.insert(t, 1, "z")
print(#t, table.concat(t, ","))
print(table.remove(t), table.concat(t, ","))
print(table.remove(t, 1), table.concat(t, ","))
print(table.remove({}), #t)
print(table.maxn({1, 2, nil, 4}), table.maxn({}))
