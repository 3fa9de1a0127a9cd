-- `ttftlab load` was stopped (Ctrl-C, a file it could not write) in a
-- level: ttftlab has made that level's record (PARAMS.level) from the
-- requests it recorded, marked interrupted, and completed OUT/load.json
-- with it when the disk took it. This prints its row as load.lua prints a
-- level, so the figures of a stopped level are on the console too.
local text = dofile("loadtext.lua")
local row = PARAMS.level
if type(row) ~= "table" or not row.interrupted then return end
-- The table's header and the rows of the levels before it are on the
-- console already.
for _, line in ipairs(text.level_lines(string.format("%g", row.level), row)) do print(line) end
print("  interrupted: the figures are over the requests that ended before the stop; those it canceled count as failed (canceled)")
for _, line in ipairs(text.legend()) do print(line) end
