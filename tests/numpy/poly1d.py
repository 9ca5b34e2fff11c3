"""np.poly1d, written in Python over NumPy on the host (crates/pylib/python/numpy_poly1d.py), with NumPy's
semantics: construction from coefficients, another poly1d or roots, the attributes and their
aliases, evaluation by Horner's scheme (composition for a poly1d), indexing by power,
arithmetic with scalars and polynomials, derivatives and integrals, and both printed forms."""
import numpy as np

p = np.poly1d([1, 2, 3])
q = np.poly1d([2.0, -0.5])
print(p)
print(repr(p), repr(q), [p, q])
print(p.coeffs, p.c, p.coef, p.coefficients, p.order, p.o, p.variable, len(p), len(q))
print(repr(np.poly1d([0, 0, 1.5, 0])), repr(np.poly1d([0, 0])), repr(np.poly1d([])), repr(np.poly1d(7)))
print(repr(np.poly1d(np.array([0.1, 0.2], dtype=np.float32))), np.poly1d(np.array([0.1, 0.2], dtype=np.float32)))

# The printed form: exponents on the line above, negative terms subtracted, zeros skipped.
print(np.poly1d([-1, 0, -2.5, 4]))
print(np.poly1d([3, 0]))
print(np.poly1d([0]))
print(np.poly1d([1.0, 0.0, 0.0]))
print(np.poly1d([1e-5, 123456.0, 1 / 3, -2e10]))
print(np.poly1d([1.0] * 12, variable="z"))
print(np.poly1d(np.arange(1.0, 30.0)))
print(repr(np.poly1d(np.arange(1.0, 30.0))))
print(np.poly1d([np.inf, -np.inf, np.nan]))
print(repr(str(np.poly1d([2, -1]))), repr(str(np.poly1d([5]))))

# From another poly1d (the variable kept or replaced) and from roots.
t = np.poly1d(p, variable="t")
print(t, repr(t), t.variable, p.variable, np.poly1d(q) == q)
print(repr(np.poly1d([1, 2], True)), repr(np.poly1d([0.5, -1.0, 2.0], r=True)), repr(np.poly1d([], True)))
print(np.poly1d([1, 2, 3], True))
print(repr(np.poly1d(np.array([1.5, 2.5], dtype=np.float32), True)))

# Evaluation: Horner's scheme, NumPy scalars for numbers, arrays for arrays, composition.
print(repr(p(2)), repr(p(0.5)), repr(q(2)), repr(p(np.array(3.0))))
print(p(np.array([0.0, 1.0, 2.0])), p([1, 2]), p(np.array([[1, 2], [3, 4]])))
print(repr(p(q)), repr(q(p)))

# Coefficients by power, iteration.
print(repr(p[0]), repr(p[2]), repr(p[3]), repr(p[-1]), repr(q[1]), list(p), list(q))
s = np.poly1d([1.0, 2.0])
s[3] = 5
print(repr(s), s.order)
s[0] = -1
s[5] = 0
print(repr(s), s.order)
print(s)

# Arithmetic.
print(repr(-p), repr(+p), +p is p)
print(repr(p + q), repr(p + 1), repr(1 + p), repr(p + [1, 1, 1, 1]))
print(repr(p - q), repr(2 - p), repr(p - 2.5), repr(p - p))
print(repr(p * q), repr(2 * p), repr(p * 2.5), repr(p * [1, 0]))
print(repr(p ** 0), repr(p ** 1), repr(p ** 3), repr(q ** 2))
print(repr(p / 2), repr(2 / q), p / q, (p ** 3 + 4) / p)
print(p == np.poly1d([1.0, 2.0, 3.0]), p == q, p != q, p != np.poly1d([1, 2, 3]), p == 3, p != 3)

# Derivatives and integrals.
print(repr(p.deriv()), repr(p.deriv(2)), repr(p.deriv(3)), repr(p.deriv(0)))
print(repr(p.integ()), repr(p.integ(2, k=1)), repr(q.integ(k=3)), repr(q.integ(m=2, k=[1, 2])))
print(p.integ(3))

# A fitted line evaluated, as a tutorial does.
x = np.array([0.0, 1.0, 2.0, 3.0])
line = np.poly1d(np.polyfit(x, 2 * x + 1, 1))
print(np.round(line(np.array([4.0, 5.0])), 8), line.order)

for bad in (lambda: p ** -1, lambda: p ** 1.5, lambda: p ** 2.0, lambda: np.poly1d([[1, 2], [3, 4]]),
            lambda: np.poly1d([[1, 2, 3]], True)):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
try:
    s[-1] = 2
except ValueError as e:
    print("ValueError:", e)
try:
    p.coeffs = np.array([1, 2])
except AttributeError as e:
    print("AttributeError:", e)
