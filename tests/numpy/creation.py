# Creating NumPy arrays: np.array, dtypes, zeros/ones/full, arange, linspace, eye, *_like, stacking, meshgrid, attributes, conversions.
import numpy as np

a = np.array([[1, 2, 3], [4, 5, 6]])
print(a)
print(repr(a))
print(a.shape, a.ndim, a.size, a.dtype)

x = np.array([0.5, 1.25, -2.0, 3.0])
print(x)
print(repr(x))
print(x.dtype)

flags = np.array([True, False, True])
print(repr(flags), flags.dtype)

f32 = np.array([1, 2, 3], dtype=np.float32)
print(repr(f32))
i32 = np.array([1.7, -2.2, 3.9], dtype=np.int32)
print(repr(i32), i32.dtype)
print(repr(np.array([0.1, 0.2], dtype='float32')))
print(repr(np.asarray([[1.0, 2.0], [3.0, 4.0]])))
print(np.asarray(x) is x)

print(repr(np.zeros(3)))
print(repr(np.zeros((2, 3), dtype=np.int32)))
print(repr(np.ones((2, 2))))
print(repr(np.full((2, 3), 7)))
print(repr(np.full(3, 0.25)))

print(repr(np.arange(5)))
print(repr(np.arange(2, 11, 3)))
print(repr(np.arange(0.0, 1.0, 0.25)))
print(repr(np.arange(10, 0, -2)))
print(repr(np.linspace(0.0, 1.0, 5)))
print(repr(np.linspace(0, 1, 4, endpoint=False)))
print(repr(np.linspace(-1, 1, 7)))
print(repr(np.eye(3)))
print(repr(np.eye(2, 3, dtype=np.int32)))

print(repr(np.zeros_like(a)))
print(repr(np.ones_like(x)))
print(repr(np.full_like(a, 9)))
print(repr(np.full_like(x, 0.5)))

u = np.array([1, 2, 3])
v = np.array([4, 5, 6])
print(repr(np.stack([u, v])))
print(repr(np.stack([u, v], axis=1)))
print(repr(np.concatenate([u, v])))
print(repr(np.concatenate([a, a], axis=1)))
print(repr(np.vstack([u, v])))
print(repr(np.hstack([u, v])))

xs, ys = np.meshgrid(np.array([1, 2, 3]), np.array([10, 20]))
print(repr(xs))
print(repr(ys))

b = a.astype(np.float64)
print(repr(b), b.dtype)
print(repr(x.astype(np.int32)))
print(repr(flags.astype(int)))

c = a.copy()
c[0, 0] = 100
print(a[0, 0], c[0, 0])
print(a.tolist(), type(a.tolist()).__name__)
print(x.tolist())
print(a[1, 2].item(), type(a[1, 2].item()).__name__)
print(np.array([[2.5]]).item())

r = np.arange(12).reshape(3, 4)
print(r)
print(repr(r.reshape(2, -1)))
print(repr(r.T), r.T.shape)
col = u[:, np.newaxis]
print(repr(col), col.shape)
print(u[np.newaxis, :].shape)
print(len(r), len(u))
for row in r:
    print(row, row.sum())
