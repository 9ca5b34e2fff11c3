# A list nested 10000 deep prints (elided below 1000 levels, where Python would stop with a
# RecursionError) instead of overflowing the interpreter's stack; then a plain error.
x = []
for i in range(10000):
    x = [x]
s = str(x)
print(len(s), s[:5], s[995:1010])
print(x[1])
