# A bracket closed by the wrong kind of bracket.
xs = [1, 2, 3)
print(xs)
