# The same argument given positionally and by keyword.
def scale(x, factor=2.0):
    return x * factor

print(scale(3.0, 4.0, factor=5.0))
