-- io.write formats numbers as tostring does.
io.write(1, " ", 1.5, " ", 1e15, " ", 2^53, " ", 1/0, " ", -1/0, " ", 0.1, "\n")
io.write(string.format("%s %s %s\n", 1e15, 0.1, 2^53))
io.write(123456789012, "\n")
