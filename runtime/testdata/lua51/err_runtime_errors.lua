-- Runtime errors are caught (their wording differs; only the fact is compared).
local cases = {
  function() return nil + 1 end,
  function() return {} .. "x" end,
  function() local t = nil; return t.x end,
  function() return #nil end,
  function() undefined_function() end,
  function() return 1 < "2" end,
  function() return {} < {} end,
}
for i, f in ipairs(cases) do
  local ok, e = pcall(f)
  print(i, ok, type(e))
end
