"""jax.numpy.linalg's decompositions: eigh, svd, qr and lstsq, and eigvalsh, svdvals, pinv and
matrix_rank on top of them.

Each algorithm is written once over an array library `xp`: jax.numpy here, numpy in
numpy._linalg, which runs the same code on the host in float64.

The machine has no factorisation unit; XLA on a TPU computes eigh and svd by Jacobi rotations
and qr by Householder reflections, all as vector and matrix work, and so does this module:

- eigh: cyclic Jacobi in Brent and Luk's parallel order. The rows and columns are kept as two
  halves whose i-th places form the i-th pair. One round rotates every pair at once
  (elementwise, on the vector unit), then moves the rows and columns one place round the
  tournament, so that n − 1 rounds (a sweep) meet every pair once.
- svd: one-sided Jacobi (Hestenes) in the same order makes a's columns orthogonal, which gives
  V; a Householder QR of a·V then gives U (square when asked) and the signs.
- qr: Householder reflections with LAPACK's conventions (geqrf's signs, orgqr's Q), so Q and R
  are the ones NumPy and JAX print.
- lstsq, pinv and matrix_rank: from the SVD, as NumPy and JAX each define them.

The loops run while the program is traced (every loop does until issue 28), so the number of
sweeps is fixed: about log2(n) sweeps bring the off-diagonal part down linearly, and three more
finish quadratically, float64's last bits included (measured on random symmetric matrices up
to 64×64). Eigenvectors and singular vectors are unique only up to sign: these are not always
LAPACK's signs, while their products (a reconstruction, a projection) agree.
"""

from collections import namedtuple

import jax.numpy as jnp
from jax import lax

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = namedtuple("QRResult", ["Q", "R"])

# The largest matrix side the unrolled sweeps take.
MAX_SIDE = 64


def _rounds(n):
    """The rounds of all sweeps over an even side n: n − 1 rounds a sweep."""
    sweeps = (max(n, 2) - 1).bit_length() + 3
    return range(sweeps * (n - 1))


def _part(x, axis, start, stop):
    """Rows (axis −2) or columns (axis −1) start..stop of the matrices x."""
    return x[..., start:stop, :] if axis == -2 else x[..., start:stop]


def _rotate(xp, x, c, s, axis):
    """Rotates every pair (i, k + i) of rows (axis −2) or columns (axis −1) of x by the angle
    whose cosine and sine are c[i] and s[i]."""
    k = x.shape[axis] // 2
    c, s = (c[..., :, None], s[..., :, None]) if axis == -2 else (c[..., None, :], s[..., None, :])
    first, second = _part(x, axis, 0, k), _part(x, axis, k, 2 * k)
    return xp.concatenate([c * first - s * second, s * first + c * second], axis=axis)


def _next_round(xp, x, axis):
    """Brent and Luk's round robin: place 0 stays, every other moves one place round the two
    halves (the first half becomes 0, k, 1, …, k − 2; the second k + 1, …, 2k − 1, k − 1)."""
    k = x.shape[axis] // 2
    if k == 1:
        return x
    order = [(0, 1), (k, k + 1), (1, k - 1), (k + 1, 2 * k), (k - 1, k)]
    return xp.concatenate([_part(x, axis, a, b) for a, b in order if b > a], axis=axis)


def _rotation(xp, app, aqq, apq):
    """The cosine and sine of the rotation that zeroes apq in [[app, apq], [apq, aqq]] (Golub
    and Van Loan, Algorithm 8.4.1); the identity where apq is already zero."""
    zero = apq == 0
    difference = aqq - app
    # Where |τ| = |difference / (2·apq)| passes 1e15, 1 + τ² is τ² in both float widths and
    # t is 1/(2τ) = apq / difference, computed so. Each branch is computed only where it is
    # finite, and so are the gradients through it (a tiny apq's square would underflow in τ's).
    large = xp.abs(difference) > 2e15 * xp.abs(apq)
    near = zero | large
    tau = difference / (2 * xp.where(near, 1.0, apq))
    t = xp.where(tau >= 0, 1.0, -1.0) / (xp.abs(tau) + xp.sqrt(1 + tau * tau))
    t = xp.where(large, apq / xp.where(large, difference, 1.0), t)
    t = xp.where(zero, 0.0, t)
    c = 1 / xp.sqrt(1 + t * t)
    return c, t * c


def _diagonal(xp, x):
    return (x * xp.eye(x.shape[-1], dtype=x.dtype)).sum(-1)


def _identity_like(xp, x, n):
    return xp.broadcast_to(xp.eye(n, dtype=x.dtype), x.shape[:-2] + (n, n))


def _pad_to_even(xp, x, rows, columns):
    """x with a zero row and/or column appended where its side is odd. A zero row and column
    stay decoupled from the rest (their rotations are the identity) and are dropped after."""
    if columns and x.shape[-1] % 2:
        x = xp.concatenate([x, xp.zeros(x.shape[:-1] + (1,), dtype=x.dtype)], axis=-1)
    if rows and x.shape[-2] % 2:
        x = xp.concatenate([x, xp.zeros(x.shape[:-2] + (1, x.shape[-1]), dtype=x.dtype)], axis=-2)
    return x


def _sort_along(xp, keys, vectors):
    """keys (…, n) in ascending order, and the columns of vectors (…, m, n) in the same."""
    order = xp.argsort(keys, axis=-1)
    return xp.take_along_axis(keys, order, axis=-1), xp.take_along_axis(vectors, order[..., None, :], axis=-1)


def jacobi_eigh(xp, a):
    """Eigenvalues (ascending) and eigenvectors (as columns) of the symmetric matrices a."""
    n = a.shape[-1]
    a = _pad_to_even(xp, a, True, True)
    m = a.shape[-1]
    k = m // 2
    v = _identity_like(xp, a, m)
    for _ in _rounds(m):
        app = _diagonal(xp, a[..., :k, :k])
        aqq = _diagonal(xp, a[..., k:, k:])
        apq = _diagonal(xp, a[..., :k, k:])
        c, s = _rotation(xp, app, aqq, apq)
        a = _rotate(xp, _rotate(xp, a, c, s, -2), c, s, -1)
        v = _rotate(xp, v, c, s, -1)
        a = _next_round(xp, _next_round(xp, a, -2), -1)
        v = _next_round(xp, v, -1)
    # m − 1 rounds bring every place back, so a padding row is last again.
    w = _diagonal(xp, a)[..., :n]
    return _sort_along(xp, w, v[..., :n, :n])


def householder_qr(xp, a, q_columns):
    """Householder QR of a (…, m, n) as LAPACK's geqrf and orgqr compute it: R (…, m, n) and
    the first q_columns columns of Q (none when q_columns is 0)."""
    m, n = a.shape[-2:]
    rows = xp.arange(m)[:, None]
    columns = xp.arange(n)[None, :]
    r = a
    reflectors = []
    for j in range(min(m, n)):
        x = r[..., :, j : j + 1]
        alpha = r[..., j : j + 1, j : j + 1]
        below = xp.where(rows > j, x, 0.0)
        below_norm = xp.sqrt((below * below).sum(-2, keepdims=True))
        # dlarfg: β = −sign(α)·‖x‖, τ = (β − α)/β, v = x/(α − β) below a leading 1; no
        # reflection (τ = 0) where x is zero below the diagonal.
        reflect = below_norm != 0
        norm = xp.sqrt(alpha * alpha + below_norm * below_norm)
        beta = xp.where(alpha >= 0, -norm, norm)
        tau = xp.where(reflect, (beta - alpha) / xp.where(reflect, beta, 1.0), 0.0)
        scale = xp.where(reflect, 1 / xp.where(reflect, alpha - beta, 1.0), 0.0)
        v = xp.where(rows == j, 1.0, below * scale)
        r = r - tau * v * (v * r).sum(-2, keepdims=True)
        # Column j exactly as geqrf leaves it: β on the diagonal, zeros below.
        column = xp.where(rows == j, xp.where(reflect, beta, alpha), xp.where(rows < j, x, 0.0))
        r = xp.where(columns == j, column, r)
        reflectors.append((v, tau))
    if not q_columns:
        return None, r
    # orgqr: the reflectors applied to the identity's first columns, the last one first.
    q = xp.broadcast_to(xp.eye(m, q_columns, dtype=a.dtype), a.shape[:-2] + (m, q_columns))
    for v, tau in reversed(reflectors):
        q = q - tau * v * (v * q).sum(-2, keepdims=True)
    return q, r


def jacobi_svd(xp, a, full_matrices, compute_uv):
    """U, S, Vh of a (…, m, n), S descending; U and Vh None when not compute_uv."""
    m, n = a.shape[-2:]
    if m < n:
        u, s, vh = jacobi_svd(xp, xp.swapaxes(a, -1, -2), full_matrices, compute_uv)
        if not compute_uv:
            return None, s, None
        return xp.swapaxes(vh, -1, -2), s, xp.swapaxes(u, -1, -2)
    # One-sided Jacobi: rotations of column pairs until every two columns of b = a·v are
    # orthogonal, each zeroing one off-diagonal element of bᵀb.
    b = _pad_to_even(xp, a, False, True)
    width = b.shape[-1]
    k = width // 2
    v = _identity_like(xp, b, width)
    for _ in _rounds(width):
        first, second = b[..., :, :k], b[..., :, k:]
        c, s = _rotation(xp, (first * first).sum(-2), (second * second).sum(-2), (first * second).sum(-2))
        b = _next_round(xp, _rotate(xp, b, c, s, -1), -1)
        v = _next_round(xp, _rotate(xp, v, c, s, -1), -1)
    b, v = b[..., :, :n], v[..., :n, :n]
    norms = xp.sqrt((b * b).sum(-2))
    order = xp.argsort(-norms, axis=-1)
    s = xp.take_along_axis(norms, order, axis=-1)
    if not compute_uv:
        return None, s, None
    b = xp.take_along_axis(b, order[..., None, :], axis=-1)
    v = xp.take_along_axis(v, order[..., None, :], axis=-1)
    # b = q·r with r diagonal up to rounding: u is q, each column signed as r's diagonal.
    q, r = householder_qr(xp, b, m if full_matrices else n)
    signs = xp.where(_diagonal(xp, r[..., :n, :]) < 0, -1.0, 1.0).astype(a.dtype)
    if full_matrices and m > n:
        u = xp.concatenate([q[..., :, :n] * signs[..., None, :], q[..., :, n:]], axis=-1)
    else:
        u = q * signs[..., None, :]
    return u, s, xp.swapaxes(v, -1, -2)


def square_side(name, a):
    """The side of the square matrices a (…, n, n), checked as JAX checks it."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got {a.shape}.")
    return checked_side(name, a.shape[-1])


def checked_side(name, n):
    if n > MAX_SIDE:
        raise ValueError(f"{name}: the playground unrolls {n}×{n} matrices sweep by sweep, at most {MAX_SIDE}×{MAX_SIDE}")
    if n == 0:
        raise NotImplementedError(f"{name} of empty matrices is not supported by the playground yet")
    return n


def hermitian_part(xp, a, lower, symmetrize):
    """The symmetric matrix eigh decomposes: (a + aᵀ)/2, or one triangle of a mirrored."""
    if symmetrize:
        return (a + xp.swapaxes(a, -1, -2)) / 2
    n = a.shape[-1]
    rows, columns = xp.arange(n)[:, None], xp.arange(n)[None, :]
    kept = xp.where(rows >= columns if lower else rows <= columns, a, 0.0)
    return kept + xp.where(rows == columns, 0.0, xp.swapaxes(kept, -1, -2))


def inexact(xp, a):
    """a as an array of floats: integers and booleans become the library's default float."""
    a = xp.asarray(a)
    return a.astype(xp.result_type(a, 1.0))


def _highest(x, y):
    return jnp.matmul(x, y, precision=lax.Precision.HIGHEST)


def _matrices(name, a):
    if a.ndim < 2:
        raise ValueError(f"{name}: input must have rank >= 2, got {a.ndim}")
    checked_side(name, min(a.shape[-2:]))


# --- jax.numpy.linalg ---------------------------------------------------------------------


def eigh(a, UPLO=None, symmetrize_input=True):
    a = inexact(jnp, a)
    square_side("eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    w, v = jacobi_eigh(jnp, hermitian_part(jnp, a, UPLO != "U", symmetrize_input))
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    a = inexact(jnp, a)
    _matrices("svd", a)
    if subset_by_index is not None:
        raise NotImplementedError("svd's subset_by_index is not supported by the playground yet")
    u, s, vh = jacobi_svd(jnp, a, full_matrices, compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


def svdvals(x, /):
    return svd(x, compute_uv=False)


def singular_value_norm(xp, svdvals, x, ord, axis, keepdims):
    """The matrix norms of singular values (ord 2: the largest, -2: the smallest, 'nuc': their
    sum) over two axes; None for any other norm (the native one computes those)."""
    if not isinstance(ord, (int, float, str)) or ord not in (2, -2, "nuc"):
        return None
    x = xp.asarray(x)
    if axis is None:
        if x.ndim != 2:
            return None
        axis = (0, 1)
    if not isinstance(axis, tuple) or len(axis) != 2:
        return None
    rows, cols = axis[0] % x.ndim, axis[1] % x.ndim
    rest = [d for d in range(x.ndim) if d not in (rows, cols)]
    s = svdvals(xp.transpose(x, rest + [rows, cols]))
    result = xp.max(s, -1) if ord == 2 else xp.min(s, -1) if ord == -2 else xp.sum(s, -1)
    return xp.expand_dims(result, tuple(sorted((rows, cols)))) if keepdims else result


def norm(x, ord=None, axis=None, keepdims=False):
    by_svd = singular_value_norm(jnp, svdvals, x, ord, axis, keepdims)
    return jnp.linalg._norm(x, ord, axis, keepdims) if by_svd is None else by_svd


def qr(a, mode="reduced"):
    a = inexact(jnp, a)
    if mode not in ("reduced", "complete", "r", "full"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if a.ndim < 2:
        raise ValueError("Argument to QR decomposition must have ndims >= 2")
    m, n = a.shape[-2:]
    checked_side("qr", max(m, n))
    k = min(m, n)
    q, r = householder_qr(jnp, a, 0 if mode == "r" else (m if mode in ("complete", "full") else k))
    if mode in ("reduced", "r"):
        r = r[..., :k, :]
    return r if mode == "r" else QRResult(q, r)


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    a, b = inexact(jnp, a), inexact(jnp, b)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    dtype = jnp.result_type(a, b)
    a, b = a.astype(dtype), b.astype(dtype)
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    m, n = a.shape
    if rcond is None:
        rcond = float(jnp.finfo(dtype).eps) * max(m, n)
    u, s, vt = svd(a, full_matrices=False)
    mask = (s > 0) & (s >= rcond * s[0])
    rank = mask.sum()
    s_inv = jnp.where(mask, 1 / jnp.where(mask, s, 1.0), 0.0)[:, None]
    x = _highest(vt.T, s_inv * _highest(u.T, b))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.asarray([], dtype=dtype)
    else:
        resid = jnp.linalg.norm(b - _highest(a, x), axis=0) ** 2
    return x.ravel() if vector else x, resid, rank, s


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    if rcond is not None:
        rtol = rcond
    a = inexact(jnp, a)
    _matrices("pinv", a)
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = 10.0 * max(m, n) * float(jnp.finfo(a.dtype).eps)
    u, s, vh = svd(a, full_matrices=False)
    cutoff = jnp.asarray(rtol)[..., None] * s[..., 0:1]
    s = jnp.where(s > cutoff, s, jnp.inf)
    return _highest(jnp.swapaxes(vh, -1, -2), jnp.swapaxes(u, -1, -2) / s[..., :, None])


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M = inexact(jnp, M)
    if M.ndim < 2:
        return (M != 0).any().astype(jnp.int32)
    S = svd(M, full_matrices=False, compute_uv=False)
    if rtol is None:
        rtol = S.max(-1) * max(M.shape[-2:]) * float(jnp.finfo(S.dtype).eps)
    rtol = jnp.expand_dims(jnp.asarray(rtol), -1)
    return (S > rtol).sum(-1)
