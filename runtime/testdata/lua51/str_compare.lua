-- String comparison and equality.
print("a" < "b", "Z" < "a", "" < "a", "abc" < "abd", "ab" < "abc")
print("a" == "a", "a" ~= "b", "10" < "9", "1" == "1.0")
local t = {"banana", "Apple", "cherry", "apple"}
table.sort(t)
print(table.concat(t, " "))
