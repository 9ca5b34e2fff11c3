"""NumPy functions written in Python over the rest of NumPy on the host (crates/pylib/python/numpy_more.py),
with NumPy's semantics: gradient with coordinates and second-order edges, the NaN-skipping
reductions, gcd/lcm, index helpers, delete, and the polynomial helpers with polyfit."""
import numpy as np

x = np.array([0.5, -1.25, 2.0, 0.0, 3.5])
a = np.arange(12.0).reshape(3, 4)
nanx = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, np.nan], [2.0, 4.0, 8.0]])
t = np.array([0.0, 0.5, 1.5, 3.0, 3.5])
print(np.real(x), np.imag(x), np.conj(a).shape, np.iscomplexobj(x), np.isrealobj(x))
print(np.isscalar(1.0), np.isscalar(x), np.isscalar(x[0]), np.isscalar(np.array(2.0)), np.isscalar([1]))
print(np.gcd(np.array([12, -18, 0, 7]), np.array([8, 24, 5, 0])), np.gcd(12, 18), np.lcm(np.array([4, -6, 0, 7]), 6))
print(np.nanprod(nanx), np.nanprod(nanx, axis=1), np.nancumsum(nanx, axis=0))
print(np.nancumprod(nanx, axis=1), np.nanvar(nanx), np.nanvar(nanx, axis=0), np.nanstd(nanx, axis=1, keepdims=True))
print(np.cumulative_prod(x), np.cumulative_prod(a, axis=1, include_initial=True))
print(np.ediff1d(a), np.ediff1d(x, to_end=np.array([9.0, 8.0]), to_begin=-1))
print(np.gradient(x), np.gradient(x, t), np.gradient(x, edge_order=2), np.gradient(x, t, edge_order=2))
print(np.gradient(a), np.gradient(a, 0.5, axis=1), np.gradient(np.array([1, 4, 9, 16])))
print(np.diag_indices(3), np.diag_indices_from(np.zeros((2, 2))), np.unravel_index(np.array([0, 5, 11]), (3, 4)))
print(np.unravel_index(7, (2, 2, 2)), np.digitize(x, np.array([-1.0, 0.0, 1.0, 3.0])), np.digitize(x, [3.0, 1.0, 0.0], right=True))
print(np.delete(x, 1), np.delete(a, 0, axis=0), np.delete(a, [0, 2], axis=1), np.delete(x, slice(1, 4)), np.delete(a, -1))
print(np.trim_zeros(np.array([0, 0, 1, 2, 0, 3, 0])), np.trim_zeros(np.array([0.0, 1.0, 0.0]), "b"))
print(np.vander(np.array([1.0, 2.0, 3.0])), np.vander(np.array([1, 2, 3]), 2, increasing=True))
print(np.polyadd([1.0, 2.0], [3.0, 4.0, 5.0]), np.polysub([1, 2], [3, 4, 5]), np.polymul([1.0, 2.0], [3.0, 4.0, 5.0]))
print(np.polyder(np.array([1.0, 2.0, 3.0, 4.0])), np.polyder([1, 2, 3, 4], 2), np.polyint([3.0, 2.0, 1.0]))
print(np.polyint([1.0, 1.0], 2, k=[1.0, 2.0]))
print(np.round(np.polyfit(t, 2 * t ** 2 - t + 1, 2), 8), np.round(np.polyfit(t, np.stack([t, t ** 2], 1), 1), 8))
try:
    np.unravel_index(12, (3, 4))
except ValueError as e:
    print("ValueError:", e)
