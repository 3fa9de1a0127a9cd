-- break, repeat-until with a local in the condition, nested loops.
local found
for i = 1, 10 do
  for j = 1, 10 do
    if i * j == 42 then found = i .. "x" .. j; break end
  end
  if found then break end
end
print(found)
local n = 0
repeat
  local done = n >= 3
  n = n + 1
until done
print(n)
local k = 0
while true do k = k + 1; if k > 5 then break end end
print(k)
