# f-string features the playground does not have yet: a conversion, the self-documenting '=',
# and a nested field in a format spec. (Comparisons inside a field are fine.)
x = 1.5
w = 8
print(f"{x == 1.5} {x != 2} {x <= 3}")
print(f"{x!r}")
print(f"{x=}")
print(f"{x:>{w}}")
