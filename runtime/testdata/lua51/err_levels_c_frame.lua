-- A level that names a C function (pcall itself) adds no position.
print(pcall(error, "called by pcall"))
print(pcall(error, "level 2", 2))
local function f() error("two up", 2) end
print(pcall(f))
