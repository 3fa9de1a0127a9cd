-- A local recursive function and an accumulator after failures.
local acc = {}
local function walk(n)
  if n == 0 then error("bottom", 0) end
  acc[#acc + 1] = n
  return walk(n - 1)
end
print(pcall(walk, 3))
print(#acc, table.concat(acc, ","))
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(10), fact(20))
