# A dedent to a column that no enclosing block started at.
def f(x):
        y = x + 1
    return y

print(f(1))
