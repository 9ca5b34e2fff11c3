# A closing bracket with nothing open.
x = 1 + 2)
print(x)
