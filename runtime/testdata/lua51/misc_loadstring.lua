-- loadstring: compiled chunks, their values and syntax errors.
local f = loadstring("return 1 + 2, ...")
print(f(10, 20))
local g, err = loadstring("return +")
print(g, type(err))
local h = loadstring("local a, b = ...; return a * b")
print(h(6, 7))
print(pcall(loadstring("error('from chunk', 0)")))
local counter = 0
local inc = loadstring("counter_g = (counter_g or 0) + 1; return counter_g")
inc(); inc()
print(inc())
