-- Strings in arithmetic.
print("10" + 5, "3" * "4", "0x10" + 0, "1e2" + 0, " 5 " * 2)
print("017" + 0, (10 .. "") + 1)
print(pcall(function() return "abc" + 1 end) == false)
print(#("x" .. 1.25))
