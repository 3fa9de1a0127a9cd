-- string.format's %s: width and precision count bytes.
print(string.format("[%s] [%10s] [%-10s] [%.2s] [%5.1s]", "abc", "abc", "abc", "abc", "abc"))
print(string.format("%s %s %s", 1, 1.5, 1e15))
print(string.format("[%6s]", "héé"))
print(string.format("%s", string.rep("x", 120)) == string.rep("x", 120))
print(string.format("%.3s|", "héllo"))
print(string.format("no args"))
print((pcall(string.format, "%d")))
