# A local variable read before the function assigns it (Python's UnboundLocalError).
total = 0

def add(x):
    total = total + x
    return total

print(add(1))
