# A loop that never ends is stopped by the step budget.
print("start")
i = 0
while True:
    i += 1
