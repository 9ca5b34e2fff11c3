# Missing colons after if, for, while and else: each is reported, and the parser carries on
# after the block the broken header introduced.
x = 3
if x > 2
    print("big")
for i in range(3)
    print(i)
while x > 0
    x -= 1
if x:
    pass
else
    pass
