# A list nested 200,000 deep, dropped when the name is rebound, when a function holding it in a
# local returns, and at the end of the run: each without one native stack frame per level
# (which once overflowed the stack and aborted).
def build(n):
    y = []
    for i in range(n):
        y = [y]
    return 0

x = []
for i in range(200000):
    x = [x]
x = None
print(build(200000))
for i in range(200000):
    x = [x]
print("built three times")
print(x[1])
