# Python statements the playground does not have.
class Model:
    pass
try:
    x = 1
except Exception:
    pass
assert 1 == 1
del x
