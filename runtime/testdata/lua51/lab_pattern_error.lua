-- The lab's shape with pcall(error) and a counting helper in a table.
local tally = {failed = 0, passed = 0}
local function note(ok) if ok then tally.passed = tally.passed + 1 else tally.failed = tally.failed + 1 end end
local failures = 0
local function fail() failures = failures + 1 end
for i = 1, 6 do
  local ok = pcall(function() if i % 3 == 0 then error("step " .. i) end end)
  note(ok)
  if not ok then fail() end
end
print(tally.passed, tally.failed, failures)
