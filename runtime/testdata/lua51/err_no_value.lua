-- error() with no value, nil, false.
print(pcall(error))
print(select("#", pcall(error)))
print(pcall(error, nil))
print(pcall(error, false))
print(pcall(function() error() end))
local ok, e = pcall(function() error(nil, 2) end)
print(ok, e, type(e))
