-- A pcall inside a coroutine catches; the coroutine goes on and yields.
local co = coroutine.create(function()
  local failures = 0
  for i = 1, 4 do
    local ok, e = pcall(function() if i % 2 == 1 then error("odd " .. i, 0) end return i end)
    if not ok then failures = failures + 1 end
    coroutine.yield(i, ok, e, failures)
  end
  return "failures", failures
end)
while true do
  local res = {coroutine.resume(co)}
  print(unpack(res))
  if coroutine.status(co) == "dead" then break end
end
