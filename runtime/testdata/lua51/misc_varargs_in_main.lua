-- The main chunk's ... holds the script's arguments (none here).
print(select("#", ...))
local args = {...}
print(#args)
