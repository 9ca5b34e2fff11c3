# np.random.default_rng (PCG64 through SeedSequence): floats, normals, bounded integers, choices and shuffles, bit for bit, and its errors.
import numpy as np

rng = np.random.default_rng(0)
print(repr(rng.random(4)))
print(repr(rng.standard_normal(5)))
print(repr(rng.integers(0, 10, size=8)))
print(repr(rng.integers(5, size=(2, 3))))
print(repr(rng.integers(-3, 3, 6, endpoint=True)))
print(repr(rng.integers(0, 2**40, 3)))
print(repr(rng.normal(1.0, 0.5, size=(2, 2))))
print(repr(rng.uniform(-1, 1, 3)))
print(repr(rng.permutation(10)))
print(repr(rng.choice(5, 3, replace=False)))
print(repr(rng.choice(4, 6, p=[0.1, 0.2, 0.3, 0.4])))
print(repr(rng.choice(100, 90, replace=False)[:10]))
print(repr(rng.choice(np.array([1.5, 2.5, 3.5]), size=4)))
print(repr(rng.integers(0, 10)), repr(rng.random()), repr(rng.normal()), repr(rng.choice(5)), repr(rng.choice([1.5, 2.5])))
print(rng, type(rng).__name__)

for seed in [1, 42, 12345, 2**40 + 7, [1, 2, 3]]:
    g = np.random.default_rng(seed)
    print(seed, repr(g.random(2)), repr(g.integers(0, 1000, 3)), repr(g.standard_normal(2)))

g = np.random.default_rng(7)
data = np.arange(10)
g.shuffle(data)
print(repr(data))
rows = np.arange(12).reshape(4, 3)
g.shuffle(rows)
print(repr(rows))
items = ["a", "b", "c", "d", "e"]
g.shuffle(items)
print(items)
print(repr(g.permutation(np.array([[1, 2], [3, 4], [5, 6]]))))
print(repr(g.choice(20000, 5, replace=False)), repr(g.choice(6, 4, replace=False, p=[0.1, 0.1, 0.2, 0.2, 0.2, 0.2])))

g1 = np.random.default_rng(3)
g2 = np.random.default_rng(g1)
print(g1 is g2)

big = np.random.default_rng(2024).standard_normal(20000)
print(repr(big[:3]), repr(np.round(big.mean(), 6)), repr(np.round(big.std(), 6)), repr(big.max()), repr(big.min()))

for bad in [lambda: rng.integers(5, 5), lambda: rng.integers(5, 4, endpoint=True), lambda: rng.normal(0, -1),
            lambda: rng.choice(0, 3), lambda: rng.choice(3, 5, replace=False), lambda: rng.choice(3, 2, p=[0.5, 0.6, 0.1]),
            lambda: rng.choice(3, 2, p=[0.5, -0.5, 1.0]), lambda: rng.choice(3, 2, p=[0.5, 0.5]),
            lambda: rng.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]), lambda: rng.choice([], 2)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
