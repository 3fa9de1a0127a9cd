-- Globals, _G and setfenv.
g_value = 5
print(_G.g_value, _G["g_value"], rawget(_G, "g_value"))
_G.g_other = "set through _G"
print(g_other)
local function f() return g_value end
setfenv(f, {g_value = "from env"})
print(f(), g_value)
print(getfenv(f).g_value)
g_value = nil
print(g_value)
