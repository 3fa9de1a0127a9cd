-- Float keys equal to integers are the same key.
local t = {}
t[1] = "int"
t[1.0] = "float"
print(t[1], #t)
t[2^53] = "big"
print(t[2^53])
t[0.5] = "half"
print(t[0.5], t[1/2])
print(#{1, 2, 3}, #"abc", #{n = 1})
