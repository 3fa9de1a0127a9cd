-- Closures made in a loop whose body fails under pcall.
local fs = {}
local total = 0
for i = 1, 4 do
  local ok, err = pcall(function()
    local v = i * i
    fs[i] = function() v = v + 1; return v end
    total = total + v
    if i % 2 == 0 then error("even " .. i, 0) end
  end)
  print(i, ok, err)
end
print(total)
for i = 1, 4 do print(fs[i](), fs[i]()) end
