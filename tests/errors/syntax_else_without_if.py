# An else (and an elif) that belong to no if: the `if` above is closed by the dedent.
x = 1
if x:
    print(x)
  else:
    print(0)
elif x > 2:
    pass
