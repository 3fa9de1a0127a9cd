-- Many values through yield and resume; nil holes are kept.
local co = coroutine.create(function(...)
  print(select("#", ...), ...)
  print(select("#", coroutine.yield(nil, 2, nil)))
  return nil, nil
end)
print(coroutine.resume(co, 1, nil, 3, nil))
print(select("#", coroutine.resume(co, nil, nil, nil)))
