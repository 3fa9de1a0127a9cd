-- A failing call between two uses of a shared local.
local count = 0
local function add(k) count = count + k end
local function fails() add(10); error("fail") end
for i = 1, 3 do
  local ok, err = pcall(fails)
  add(1)
  print(i, ok, err, count)
end
