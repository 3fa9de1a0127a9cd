-- Catch, inspect, rethrow.
local function risky(x)
  if x > 2 then error({level = x}) end
  return x * 2
end
local function wrapper(x)
  local ok, e = pcall(risky, x)
  if not ok then
    e.wrapped = true
    error(e, 0)
  end
  return e
end
for x = 1, 4 do
  local ok, e = pcall(wrapper, x)
  if ok then print(x, ok, e) else print(x, ok, e.level, e.wrapped) end
end
local ok, e = pcall(function()
  local ok2, e2 = pcall(error, "inner", 0)
  error("outer saw: " .. e2, 0)
end)
print(ok, e)
