# `**` needs a dict.
def f(**options):
    return options

print(f(**[("a", 1)]))
