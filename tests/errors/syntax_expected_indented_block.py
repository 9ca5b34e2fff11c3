# A block header followed by an unindented line.
def f(x):
return x * 2

print(f(3))
