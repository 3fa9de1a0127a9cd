-- unpack with explicit ranges keeps nils.
print(unpack({1, 2, 3}))
print(unpack({1, 2, 3}, 2))
print(unpack({1, 2, 3}, 2, 3))
print(unpack({1, nil, 3}, 1, 3))
print(select("#", unpack({}, 1, 3)))
print(unpack({"a", "b"}, 3))
local function f(...) local t = {...}; return unpack(t, 1, select("#", ...)) end
print(f(nil, "x", nil))
