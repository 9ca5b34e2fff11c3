# Python statements the playground does not have.
class Model:
    pass
try:
    x = 1
except Exception:
    pass
with open("f") as fh:
    pass
assert 1 == 1
del x
