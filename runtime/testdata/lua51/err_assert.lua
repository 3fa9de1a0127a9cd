-- assert passes its values through, or raises its message.
print(assert(1, 2, 3))
print(pcall(assert, false))
print(pcall(assert, nil, "custom message"))
local ok, e = pcall(assert, false, {x = 1})
print(ok, type(e), e.x)
print(select("#", assert(true, nil, nil)))
