-- What lab-like code prints for each kind of error value.
local values = {"text", 12, true, false}
for _, v in ipairs(values) do
  local ok, e = pcall(error, v, 0)
  print(type(e), tostring(e))
end
local ok, e = pcall(error, nil)
print(type(e), tostring(e))
