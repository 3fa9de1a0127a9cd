-- Building a report line by line, as the lab's summary does.
local rows = {{"ttft", "ok", 12.345}, {"stream", "FAILED", 0}, {"load", "ok", 1234.5}}
for _, r in ipairs(rows) do
  print(string.format("%-9s %-7s %7.0f ms", r[1], r[2], r[3]))
end
local function steps(n) return n == 1 and "1 step" or (n .. " steps") end
print(steps(1), steps(2))
print(string.format("%s of %d did not pass", steps(1), #rows))
