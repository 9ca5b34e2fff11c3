# NumPy views: basic slices, transposes and reshapes share memory with their base (writes show through both ways); fancy indexing and copies do not.
import numpy as np

a = np.arange(12).reshape(3, 4)
row = a[1]
row[0] = 100
print(repr(a))
col = a[:, 2]
col += 1000
print(repr(a), repr(col))
t = a.T
t[0, 0] = -1
print(repr(a))
flat = a.ravel()
flat[-1] = 77
print(repr(a))
r = a.reshape(4, 3)
r[0] = 0
print(repr(a))
step = a[::2, ::3]
step[:] = 9
print(repr(a))
a[0, 0] = 5
print(repr(step), repr(t[0]))

fancy = a[[0, 1]]
fancy[:] = -7
print(repr(a))
masked = a[a > 100]
masked[:] = 0
print(repr(a))
c = a.copy()
c[0, 0] = 12345
print(repr(a[0]))
b = np.array(a)
b[0, 0] = 54321
print(repr(a[0]))
s = np.asarray(a)
s[2, 3] = -2
print(repr(a[2]), s is a)

x = np.zeros(6)
v = x[1:5]
w = v[1:3]
w += 2.5
print(repr(x), repr(v), repr(w))
x[:] = np.arange(6)
print(repr(v), repr(w))
e = x[np.newaxis, 2:4]
e[0, 1] = 99
print(repr(x), e.shape)
u = x[...]
u[0] = -1
print(repr(x))
s2 = np.arange(8).reshape(2, 2, 2)
sw = s2.swapaxes(0, 2)
sw[1, 0, 0] = 50
print(repr(s2))
sq = np.zeros((1, 3)).squeeze()
sq[1] = 4
print(repr(sq))
tr = np.arange(6).reshape(2, 3).T.ravel()
tr[0] = 100
print(repr(tr))
z = np.ones(4)
z[1:3] *= np.array([2.0, 3.0])
z[::-1][0] = 8
print(repr(z))
k = np.arange(5)
kv = k[1:4]
kv.sort()
kv[:] = kv[::-1]
print(repr(k))
f = np.arange(6.0)
f[2:4].fill(0.5)
print(repr(f))
