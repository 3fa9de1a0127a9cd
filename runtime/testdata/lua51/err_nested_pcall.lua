-- Nested protected calls: each catches its own error.
local trace = {}
local function t(s) trace[#trace + 1] = s end
local ok, e = pcall(function()
  t("a")
  local ok1, e1 = pcall(function()
    t("b")
    local ok2, e2 = pcall(function() t("c"); error("c failed", 0) end)
    t("b got " .. tostring(ok2) .. " " .. e2)
    error("b failed", 0)
  end)
  t("a got " .. tostring(ok1) .. " " .. e1)
  return "a done"
end)
print(ok, e)
print(table.concat(trace, "; "))
