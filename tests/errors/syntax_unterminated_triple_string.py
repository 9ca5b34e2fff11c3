# A triple-quoted string that never ends.
x = 1
doc = """this docstring
never ends
print(x)
