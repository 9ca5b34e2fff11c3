# A list nested 200,000 deep, dropped when the name is rebound and again at the end of the run:
# both without one native stack frame per level (which once overflowed the stack and aborted).
x = []
for i in range(200000):
    x = [x]
x = None
for i in range(200000):
    x = [x]
print("built twice")
print(x[1])
