-- type and tostring of the basic values.
print(type(nil), type(true), type(1), type("s"), type({}), type(print), type(coroutine.create(function() end)))
print(tostring(nil), tostring(true), tostring(false), tostring(12), tostring("s"))
print(nil == false, 0 == false, "" == false, not nil, not 0, not "")
print(1 and 2, nil and 2, false or "x", nil or false, 1 or error("never"))
