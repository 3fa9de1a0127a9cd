-- Three levels of functions sharing locals, errors caught at each level.
local a = 0
local function level1()
  local b = 0
  local function level2()
    local c = 0
    local function level3()
      a, b, c = a + 1, b + 1, c + 1
      error("deep", 0)
    end
    print("l3", pcall(level3))
    print("l3", pcall(level3))
    return c
  end
  print("c", level2())
  print("b", b)
  return b
end
print("l1", pcall(level1))
print("a", a)
