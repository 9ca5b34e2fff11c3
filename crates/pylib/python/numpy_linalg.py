"""numpy.linalg's decompositions on the host: jax._linalg's algorithms run over numpy (in
float64 for integers and float64 input), with NumPy's signatures, defaults, results and errors."""

from collections import namedtuple

import numpy as np
from jax._linalg import checked_side, hermitian_part, householder_qr, inexact, jacobi_eigh, jacobi_svd, singular_value_norm

LinAlgError = np.linalg.LinAlgError

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = namedtuple("QRResult", ["Q", "R"])


def _at_least_2d(a):
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")


def _square(name, a):
    _at_least_2d(a)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    checked_side(name, a.shape[-1])


def eigh(a, UPLO="L"):
    a = inexact(np, a)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    _square("eigh", a)
    w, v = jacobi_eigh(np, hermitian_part(np, a, UPLO == "L", False))
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):
    return eigh(a, UPLO).eigenvalues


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    a = inexact(np, a)
    _at_least_2d(a)
    checked_side("svd", min(a.shape[-2:]))
    u, s, vh = jacobi_svd(np, a, full_matrices, compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


def svdvals(x, /):
    return svd(x, compute_uv=False)


def norm(x, ord=None, axis=None, keepdims=False):
    by_svd = singular_value_norm(np, svdvals, x, ord, axis, keepdims)
    return np.linalg._norm(x, ord, axis, keepdims) if by_svd is None else by_svd


def qr(a, mode="reduced"):
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("qr(mode='raw') is not supported by the playground yet")
    a = inexact(np, a)
    _at_least_2d(a)
    m, n = a.shape[-2:]
    checked_side("qr", max(m, n))
    k = min(m, n)
    q, r = householder_qr(np, a, 0 if mode == "r" else (m if mode == "complete" else k))
    if mode in ("reduced", "r"):
        r = r[..., :k, :]
    return r if mode == "r" else QRResult(q, r)


def lstsq(a, b, rcond=None):
    a, b = inexact(np, a), inexact(np, b)
    if a.ndim != 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if b.ndim != 2:
        raise LinAlgError(f"{b.ndim}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    if m != b.shape[0]:
        raise LinAlgError("Incompatible dimensions")
    dtype = np.result_type(a, b)
    a, b = a.astype(dtype), b.astype(dtype)
    if rcond is None:
        rcond = np.finfo(dtype).eps * max(m, n)
    u, s, vt = svd(a, full_matrices=False)
    large = s > rcond * s.max()
    rank = np.int32(large.sum())
    s_inv = np.where(large, 1 / np.where(large, s, 1.0), 0.0)
    x = vt.T @ (s_inv[:, None] * (u.T @ b))
    if rank < n or m <= n:
        resid = np.zeros(0, dtype=dtype)
    else:
        resid = ((b - a @ x) ** 2).sum(axis=0)
    return x.ravel() if vector else x, resid, rank, s


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    a = inexact(np, a)
    _at_least_2d(a)
    checked_side("pinv", min(a.shape[-2:]))
    if rcond is None:
        rcond = 1e-15 if rtol is None else rtol
    u, s, vt = svd(a, full_matrices=False)
    large = s > np.asarray(rcond)[..., None] * s.max(axis=-1, keepdims=True)
    s = np.where(large, 1 / np.where(large, s, 1.0), 0.0)
    return np.swapaxes(vt, -1, -2) @ (s[..., :, None] * np.swapaxes(u, -1, -2))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = np.asarray(A)
    if A.ndim < 2:
        return int(not (A == 0).all())
    S = svd(A, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = np.asarray(rtol)[..., None]
        tol = S.max(axis=-1, keepdims=True) * rtol
    else:
        tol = np.asarray(tol)[..., None]
    return np.count_nonzero(S > tol, axis=-1)
