# Unbounded recursion stops at the recursion limit instead of overflowing the stack.
def f(n):
    return f(n + 1) + 1

print(f(0))
