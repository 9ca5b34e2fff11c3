# A list nested 200,000 deep, dropped when the list item or dict value holding it is replaced
# and when its list is cleared: each without one native stack frame per level (the CLI aborted
# with a stack overflow on each).
def deep(n):
    x = []
    for i in range(n):
        x = [x]
    return x

holder = [deep(200000)]
holder[0] = 1
table = {"deep": deep(200000)}
table["deep"] = 2
bag = [deep(200000)]
bag.clear()
print("replaced three times")
print(holder[1])
