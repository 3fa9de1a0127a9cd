-- Number to string through .. and table.concat.
print(1 .. "", 1.5 .. "|", 1e15 .. "", 2^53 .. "", (1/0) .. "", (-1/0) .. "")
print(table.concat({1, 2.5, 1e15, 1/3, 2^63}, " "))
print(10 .. 20)
local s = ""
for i = 1, 5 do s = s .. i / 2 .. "," end
print(s)
