local function check(status) if status ~= 200 then error("the server answered " .. status, 2) end end
check(500)
