# A user function called with one argument too many.
def f(x, y=2):
    return x + y

print(f(1, 2, 3))
