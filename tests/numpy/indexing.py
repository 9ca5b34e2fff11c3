# Indexing NumPy arrays: integers, slices, negative steps, ellipsis, newaxis, masks, fancy indices, setitem, in-place operators, views.
import numpy as np

a = np.arange(12).reshape(3, 4)
print(a)
print(repr(a[1, 2]), a[1, 2], repr(a[-1, -1]))
print(repr(a[1]), repr(a[:, 2]))
print(repr(a[0:2, 1:3]))
print(repr(a[::2, ::-1]))
print(repr(a[:, -2:]))
x = np.linspace(0.0, 1.0, 6)
print(repr(x[::-1]), repr(x[4:1:-1]), repr(x[::2]))
t = np.arange(24).reshape(2, 3, 4)
print(repr(t[..., 1]))
print(repr(t[1, ...]), t[..., 0].shape)
print(t[:, np.newaxis, 0].shape, a[np.newaxis].shape, a[:, None, :].shape)

mask = a % 3 == 0
print(repr(mask))
print(repr(a[mask]))
print(repr(x[x > 0.5]))
print(repr(a[a[:, 0] > 2]))
print(repr(x[[0, 2, 5]]), repr(x[np.array([-1, 0])]))
print(repr(a[[0, 2]]), repr(a[[0, 1, 2], [3, 2, 1]]))
print(repr(a[1:, [0, 3]]))

y = np.zeros(6)
y[0] = 1.5
y[2:4] = 7
y[-1] = -2
print(repr(y))
y[y == 0] = 0.25
print(repr(y))
y[[1, 3]] = np.array([10.0, 20.0])
print(repr(y))
m = np.zeros((3, 3), dtype=np.int32)
m[1] = 5
m[:, 2] = np.array([1, 2, 3])
m[0, 0] = 9.7
print(repr(m))
m[m > 4] = -1
print(repr(m))

c = np.arange(5)
c += 1
print(repr(c))
c[1:] *= 2
print(repr(c))
f = np.ones(3)
f -= 0.5
f /= 4
print(repr(f))
b = c
c += 100
print(repr(b), b is c)
c = c + 1
print(repr(b), repr(c))

base = np.arange(6)
v = base[1:3]
v[0] = 99
print(repr(base))
v[:] = -1
print(repr(base), repr(v))
r = base.reshape(2, 3)
r[1, 1] = 42
print(repr(base))
w = base[::2]
w *= 10
print(repr(base))
print([int(e) for e in base[base > 0]])

# 0-d boolean masks: a new axis, kept whole (True) or emptied (False).
z = np.array(3.0)
print(repr(z[np.array(True)]), repr(z[np.array(False)]), repr(z[True]))
m = np.arange(6).reshape(2, 3)
print(m[True].shape, m[False].shape, m[:, True].shape, m[..., np.False_].shape, m[0, True], m[np.bool_(True), 1])
