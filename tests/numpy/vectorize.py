# np.vectorize: elementwise on Python scalars with the first output's dtype, several outputs, otypes, excluded, the decorator forms, gufunc signatures (core slices, new output dimensions), how often the function is called, and NumPy's errors.
import numpy as np

def pick(x, i):
    return x[i]

x = np.arange(12.0).reshape(3, 4)
vpick = np.vectorize(pick, signature="(n),()->()")
print(repr(vpick(x, 2)), repr(vpick(x, np.array([0, 1, 3]))))

def bump(a, b):
    return a + 2 * b if a > b else a - b

print(repr(np.vectorize(bump)([1, 5, 3], 2)), repr(np.vectorize(bump)(2.5, 1)))
print(repr(np.vectorize(bump)(np.array([[1.0], [4.0]]), np.array([0, 3, 9]))))

calls = []
def kind(v):
    calls.append(type(v).__name__)
    return v * 0.5

print(repr(np.vectorize(kind)(np.array([1, 2, 3]))), calls)
calls.clear()
print(repr(np.vectorize(kind, cache=True)(np.array([1, 2, 3]))), calls)

@np.vectorize
def half(t):
    return t / 2

print(repr(half(np.arange(4))), repr(half(7)))

@np.vectorize(otypes=[float])
def as_float(t):
    return t

print(repr(as_float([1, 2])), repr(np.vectorize(lambda t: t > 1, otypes=[bool])([0.5, 2.0])))
print(repr(np.vectorize(lambda t: t, otypes="d")(np.arange(3))))
print(np.vectorize(lambda a, b: (a + b, a * b))(np.arange(3), 2))
print(repr(np.vectorize(lambda v, p: v ** p, excluded={1})(np.arange(4.0), 2)))
print(repr(np.vectorize(lambda v, p=1: v * p, excluded={"p"})(np.arange(3), p=10)))

def stats(v):
    return v.mean(), v.std()

m, s = np.vectorize(stats, signature="(n)->(),()")(x)
print(repr(m), repr(s))
print(np.vectorize(np.outer, signature="(n),(m)->(n,m)")(np.ones((2, 3)), np.arange(2.0)).shape)
print(repr(np.vectorize(lambda v: v[::-1], signature="(n)->(n)")(x)))
print(repr(np.vectorize(lambda v: np.arange(3) * v, signature="()->(k)")(np.array([1, 2]))))
print(repr(np.vectorize(lambda t: t, otypes=[float])(np.zeros(0))))

for bad in [
    lambda: np.vectorize(pick, signature="(n),()->")(x, 1),
    lambda: np.vectorize(pick, signature="(n),(n)->()")(x, np.zeros(3, int)),
    lambda: np.vectorize(pick, signature="(n),()->()")(x),
    lambda: np.vectorize(pick, signature="(n,m),()->()")(np.ones(3), 1),
    lambda: np.vectorize(stats, signature="(n)->()")(x),
    lambda: np.vectorize(lambda t: t)(np.zeros(0)),
    lambda: np.vectorize(bump)(np.ones(3), np.ones(2)),
]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
