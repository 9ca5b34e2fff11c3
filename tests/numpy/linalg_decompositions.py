# np.linalg's decompositions in float64: eigh/eigvalsh, svd/svdvals, qr in each mode, lstsq, pinv and matrix_rank; vectors up to sign (LAPACK's are its own), reconstructions, and NumPy's errors.
import numpy as np

def show(x):
    # Rounded, with -0.0 printed as 0.0: the last bits of a zero are the algorithm's own.
    print(repr(np.round(x, 8) + 0.0))

A = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
w, v = np.linalg.eigh(A)
print(w)
show(np.abs(v))
print(np.allclose(v @ np.diag(w) @ v.T, A), np.allclose(v.T @ v, np.eye(3)))
res = np.linalg.eigh(A)
print(type(res).__name__, res.eigenvalues, res[0].dtype)
print(np.linalg.eigvalsh(np.array([[2, 1], [1, 2]])), np.linalg.eigvalsh(A, UPLO="U"))
lower_only = np.array([[2.0, 100.0], [1.0, 2.0]])
print(np.linalg.eigvalsh(lower_only), np.linalg.eigvalsh(lower_only, UPLO="U"))
batch = np.stack([A, 2 * A + np.eye(3)])
print(np.linalg.eigvalsh(batch))
print(np.linalg.eigh(np.eye(4)).eigenvectors)
Q4 = np.array([[2.0, 1.0, 0.0, 1.0], [1.0, 3.0, 1.0, 0.0], [0.0, 1.0, 4.0, 2.0], [1.0, 0.0, 2.0, 5.0]])
print(np.linalg.eigvalsh(Q4), np.linalg.eigvalsh(np.diag([3.0, -1.0, 2.0, 0.5, 7.0])))

R = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5], [-1.0, 0.5]])
u, s, vh = np.linalg.svd(R)
print(u.shape, s, vh.shape)
show(np.abs(vh))
print(np.allclose(u[:, :2] * s @ vh, R), np.allclose(u.T @ u, np.eye(4)))
u2, s2, vh2 = np.linalg.svd(R.T, full_matrices=False)
print(u2.shape, s2, vh2.shape, np.allclose(u2 * s2 @ vh2, R.T))
print(np.linalg.svd(R, compute_uv=False), np.linalg.svdvals(Q4))
print(type(np.linalg.svd(R)).__name__, np.linalg.svd(np.array([[3, 0], [0, -4]])).S)
print(np.linalg.svd(np.stack([R, 2 * R]), compute_uv=False))

q, r = np.linalg.qr(R)
show(q)
show(r)
print(type(np.linalg.qr(R)).__name__, np.allclose(q @ r, R))
qc, rc = np.linalg.qr(R, mode="complete")
print(qc.shape, rc.shape, np.allclose(qc @ rc, R), np.allclose(qc.T @ qc, np.eye(4)))
show(np.linalg.qr(R, mode="r"))
show(np.linalg.qr(R.T).R)
show(np.linalg.qr(np.array([[1, 2], [3, 4]])).Q)

b = np.array([1.0, 2.0, 0.5, -1.0])
x, resid, rank, sv = np.linalg.lstsq(R, b)
print(x, resid, rank, sv)
print(repr(rank), resid.shape)
B = np.stack([np.ones(4), np.arange(4.0)], axis=1)
x2, resid2, rank2, _ = np.linalg.lstsq(R, B, rcond=None)
print(x2, resid2)
x3, resid3, rank3, _ = np.linalg.lstsq(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.array([1.0, 2.0, 3.0]))
print(x3, resid3, rank3)
x4, resid4, rank4, _ = np.linalg.lstsq(R.T, np.array([1.0, 2.0]))
print(x4, resid4, rank4)

show(np.linalg.pinv(R))
print(np.allclose(R @ np.linalg.pinv(R) @ R, R))
show(np.linalg.pinv(np.array([[1.0, 2.0], [2.0, 4.0]])))
print(np.linalg.matrix_rank(R), np.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])), np.linalg.matrix_rank(np.eye(3)))
print(np.linalg.matrix_rank(np.zeros((2, 2))), np.linalg.matrix_rank(np.array([1.0, 0.0])), np.linalg.matrix_rank(R, tol=2.0))

for bad in [
    lambda: np.linalg.eigh(R),
    lambda: np.linalg.eigh(np.ones(3)),
    lambda: np.linalg.eigh(A, UPLO="X"),
    lambda: np.linalg.svd(np.ones(3)),
    lambda: np.linalg.qr(R, mode="thin"),
    lambda: np.linalg.qr(np.ones(3)),
    lambda: np.linalg.lstsq(R, np.ones(3)),
    lambda: np.linalg.lstsq(np.ones(4), b),
]:
    try:
        bad()
    except (np.linalg.LinAlgError, ValueError) as e:
        print(type(e).__name__ + ":", e)

# Matrix norms of singular values: ord 2 (the largest), -2 (the smallest), 'nuc' (their sum).
rng = np.random.default_rng(7)
m = rng.normal(size=(6, 6))
print(round(np.linalg.norm(m, ord=2), 10), round(np.linalg.norm(m, -2), 10), round(np.linalg.norm(m, "nuc"), 10))
stack = np.arange(24.0).reshape(2, 3, 4)
print(np.round(np.linalg.norm(stack, 2, axis=(1, 2)), 8), np.linalg.norm(stack, "nuc", axis=(2, 0), keepdims=True).shape)
