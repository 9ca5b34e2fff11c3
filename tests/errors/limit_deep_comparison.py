# Ordering lists nested deeper than Python's recursion limit (1,000 levels) is an error, as in
# Python, not a stack overflow.
a = [1]
b = [2]
for i in range(5000):
    a = [a]
    b = [b]
print(a < b)
