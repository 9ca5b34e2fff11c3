# f-string features the playground does not have yet: a nested field in a format spec; and a
# conversion Python does not have. (Comparisons inside a field, !r, !s, !a and the
# self-documenting {x=} are fine.)
x = 1.5
w = 8
print(f"{x == 1.5} {x != 2} {x <= 3} {x!r:>6}")
print(f"{x!q}")
print(f"{x=}")
print(f"{x:>{w}}")
