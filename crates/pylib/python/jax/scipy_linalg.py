"""jax.scipy.linalg: triangular solves and Cholesky factors, on jax.numpy.

Triangular solves substitute row by row at full float32 precision (a TPU's triangular solve
does not round its operands to bfloat16 as a DEFAULT matmul does). Matrices are 2-D.
"""

import jax.numpy as jnp
from jax import lax


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    L = jnp.linalg.cholesky(a)
    return L if lower else jnp.swapaxes(L, -1, -2)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None, check_finite=True):
    a = jnp.asarray(a, dtype=float)
    b = jnp.asarray(b, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise NotImplementedError("solve_triangular of anything but one square matrix is not supported by the playground yet")
    if trans in (1, 2, "T", "C"):
        a = a.T
        lower = not lower
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    n = a.shape[0]
    if b.shape[0] != n:
        raise ValueError(f"shapes {a.shape} and {b.shape} are incompatible for solve_triangular")
    x = jnp.zeros_like(b)
    for i in range(n) if lower else range(n - 1, -1, -1):
        s = b[i] - jnp.dot(a[i], x, precision=lax.Precision.HIGHEST)
        if not unit_diagonal:
            s = s / a[i, i]
        x = x.at[i].set(s)
    return x[:, 0] if vector else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = c_and_lower
    if lower:
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans=1, lower=True)
    y = solve_triangular(c, b, trans=1, lower=False)
    return solve_triangular(c, y, lower=False)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False, check_finite=True, assume_a="gen"):
    return jnp.linalg.solve(a, b)


def inv(a, overwrite_a=False, check_finite=True):
    return jnp.linalg.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    return jnp.linalg.det(a)
