-- select with counts, positive and negative indices.
print(select("#"))
print(select("#", nil))
print(select("#", nil, nil, nil))
print(select(2, "a", "b", "c"))
print(select(3, "a", "b", "c"))
print(select(-1, "a", "b", "c"))
print(select(-2, "a", "b", "c"))
print((pcall(select, 0, "a")))
local function count(...) return select("#", ...) end
print(count(), count(nil), count(1, nil), count(nil, 1))
