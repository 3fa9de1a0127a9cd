-- String methods on numbers through tostring.
local n = 1234.5
print(tostring(n):len(), tostring(n):reverse())
print(("%5.2f"):format(n), ("%d items"):format(3))
print(#tostring(2^53), #tostring(1e15), #tostring(0.1))
print(tostring(1e15):find("e"))
