-- Multiple assignment evaluates every value before assigning (yuin/gopher-lua#440).
local a, b = 1, 2
a, b = b, a
print(a, b)
local x, y = 0, 0
x, y = x + 1, x + y
print(x, y)
local t = {}
local i = 3
i, t[i] = i + 1, 20
print(i, t[3], t[4])
local v = 1
local u = {}
u[1], v = v, 5
print(u[1], v)
local tt = {}
local keep = tt
tt[1], tt = "one", nil
print(keep[1], tt)
g1, g2 = 1, 2
g1, g2 = g2, g1
print(g1, g2)
local p, q, r = 1, 2, 3
p, q, r = r, p, q
print(p, q, r)
local function up()
  local m, n = "m", "n"
  local function sw() m, n = n, m end
  sw(); return m, n
end
print(up())
local s = {1, 2}
s[1], s[2] = s[2], s[1]
print(s[1], s[2])
local function two() return 7, 8 end
local c, d, e = 0, 0, 0
c, d, e = e, two()
print(c, d, e)
local f1, f2 = 1, 2
f1, f2 = f2
print(f1, f2)
local h = {}
h.x, h.y = 1, 2
h.x, h.y = h.y, h.x
print(h.x, h.y)
local k = 1
k, k = 2, 3
print(k)
local w, z = 1
print(w, z)
local aa, bb = 10, 20
aa, bb = bb and aa, aa or bb
print(aa, bb)
