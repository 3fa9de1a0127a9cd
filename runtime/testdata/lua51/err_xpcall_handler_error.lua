-- The handler's own result and a handler that sees non-string errors.
print(xpcall(function() error({1, 2, 3}) end, function(e) return #e end))
print(xpcall(function() error("msg", 0) end, function(e) return e:upper(), "ignored" end))
print(xpcall(function() local x = nil; return x.field end, function(e) return "caught" end))
