# Elementwise math, reductions with axis/keepdims, linear algebra products, sorting, comparisons and array printing (inf/nan, scientific, wrapping, summarising).
import numpy as np

x = np.linspace(0, 1, 7)
print(repr(x))
print(repr(np.exp(x)))
print(repr(np.log(x + 1)), repr(np.sqrt(x)))
print(repr(np.sin(x)), repr(np.cos(x)), repr(np.tanh(x - 0.5)))
y = np.array([-2.5, -1.5, -0.4, 0.0, 0.5, 1.5, 2.7])
print(repr(np.abs(y)), repr(np.floor(y)), repr(np.ceil(y)))
print(repr(np.round(y)), repr(np.round(x, 3)), repr(np.sign(y)))
print(repr(np.clip(y, -1, 1)), repr(np.maximum(y, 0)), repr(np.minimum(y, x)))
print(repr(np.where(y > 0, y, 0.1 * y)), repr(np.square(y)), repr(np.power(x, 3)))

m = np.arange(1.0, 13.0).reshape(3, 4) / 7
print(repr(m))
print(repr(np.sum(m)), repr(m.sum(axis=0)), repr(m.sum(axis=1, keepdims=True)))
print(repr(np.mean(m)), repr(m.mean(axis=0)), repr(np.mean(m, axis=1)))
print(repr(m.max()), repr(m.min(axis=1)), repr(np.max(m, axis=0, keepdims=True)))
print(repr(np.prod(x[1:])), repr(m.prod(axis=1)))
print(repr(np.std(m)), repr(np.var(m)), repr(m.std(axis=0)), repr(np.var(x, axis=0)))
print(repr(np.argmax(y)), repr(np.argmin(y)), repr(m.argmax(axis=1)), repr(np.argmin(m, axis=0)))
print(repr(np.cumsum(x)), repr(np.cumsum(np.arange(6).reshape(2, 3), axis=1)))
print(repr(np.all(y > -3)), repr(np.any(y > 2, axis=0)), repr((m > 1).any(axis=1)), repr(np.all(m > 0.5, axis=0)))

a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) / 3
b = np.array([[0.5, -1.0], [2.0, 0.25], [-1.5, 1.0]])
print(repr(np.dot(a, b)), repr(np.matmul(a, b)), repr(a @ b))
print(repr(np.dot(x, x)), repr(np.outer(x[:3], y[:2])))
print(repr(np.einsum('ij,jk->ik', a, b)), repr(np.transpose(a)), repr(a.T @ a))

u = np.array([3.0, -1.0, 2.5, -1.0, 0.0, 3.0])
print(repr(np.sort(u)), repr(np.argsort(u, kind='stable')), repr(np.unique(u)))
print(repr(np.sort(np.array([[3, 1, 2], [9, 7, 8]]), axis=1)), repr(np.unique(np.array([2, 2, 1, 5, 1]))))
print(np.allclose(x, x + 1e-10), np.allclose(x, x + 1e-3), repr(np.isclose(u, 3.0)))
print(np.array_equal(u, u.copy()), np.array_equal(u, u[:3]), np.array_equal(np.array([1, 2]), np.array([1.0, 2.0])))

print(np.pi, np.e, np.inf, -np.inf, np.nan)
print(repr(np.pi), repr(np.nan))
z = np.array([1.0, np.inf, -np.inf, np.nan, 0.0])
print(z, repr(z))
print(repr(np.exp(np.array([-np.inf, 0.0, np.inf]))), repr(np.sqrt(np.array([4.0, np.inf]))), repr(np.max(z)), repr(np.sum(z[:2])))
print(repr(np.array([1e-8, 1.0, 1e8])), repr(np.array([123456789.0, 0.5])), repr(np.array([1e16, 1.0])))
print(np.array([1e-5, 2e-5]), np.array([0.001, 1000.0]))
wide = np.linspace(0, 1, 40).reshape(2, 20)
print(wide)
print(repr(wide))
big = np.arange(1200) * 0.5
print(big)
print(repr(big), repr(np.arange(1200).reshape(30, 40)))

# Float64 sums as NumPy adds them (pairwise over contiguous blocks, in order along other axes).
big = np.random.RandomState(1).randn(10007) * 1000
print(repr(big.sum()), repr(big.mean()), repr(np.sum(big[:100])), repr(big[:7].sum()))
grid = big[:10000].reshape(100, 100)
print(repr(grid.sum(axis=1)[:3]), repr(grid.sum(axis=0)[:3]), repr(grid.sum()))
