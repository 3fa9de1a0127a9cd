-- Numeric for with float and negative steps.
local out = {}
for i = 1, 2, 0.25 do out[#out + 1] = i end
print(table.concat(out, " "))
out = {}
for i = 10, 1, -3 do out[#out + 1] = i end
print(table.concat(out, " "))
out = {}
for i = 0.1, 0.5, 0.1 do out[#out + 1] = i end
print(#out, table.concat(out, " "))
for i = 1, 0 do print("never") end
local i = "outer"
for i = 1, 2 do end
print(i)
