# A list sharing one nested list at every level has 2^30 leaves: its repr stops growing past
# what any print could show, and the print ends at the output limit instead of eating memory.
x = []
for i in range(30):
    x = [x, x]
print(x)
