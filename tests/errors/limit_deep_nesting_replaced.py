# A list nested 200,000 deep, dropped when the list item or dict value holding it is replaced,
# when its list is cleared, and when a statement discards it: each without one native stack
# frame per level (the CLI aborted with a stack overflow on each).
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
stack = [deep(200000)]
stack.pop()
print("replaced four times")
print(holder[1])
