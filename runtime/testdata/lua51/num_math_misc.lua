-- More of the math library.
print(math.exp(0), math.log(1), math.log10(1000), math.log(math.exp(2)))
print(math.sin(0), math.cos(0), math.floor(math.tan(1) * 1000))
print(math.deg(math.pi), math.rad(180))
print(math.frexp(8))
print(math.ldexp(0.5, 4))
print(string.format("%.4f %.4f", math.asin(1), math.atan2(1, 1)))
