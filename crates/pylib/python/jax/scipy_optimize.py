"""jax.scipy.optimize.minimize with method="BFGS", as JAX 0.10 computes it: Nocedal and Wright's
algorithm 6.1 (BFGS updates of the inverse Hessian) with their strong-Wolfe line search
(algorithms 3.5 and 3.6), all in JAX: each loop is a `lax.while_loop` over a state of arrays,
each branch a `jnp.where`, so the whole minimisation stages into one program under `jit` and
its steps are JAX's own, step for step."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimiser of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc**2, -(db**2)], [-(dc**3), db**3]])
    d2 = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc])
    A, B = _dot(d1, d2) / denom
    radical = B * B - 3.0 * A * fpa
    return a + (-B + jnp.sqrt(radical)) / (3.0 * A)


def _quad_min(a, fa, fpa, b, fb):
    """The minimiser of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    B = (fb - fa - fpa * db) / (db**2)
    return a - fpa / (2.0 * B)


def _pick(condition, old, new):
    """`old` (a dict of arrays) with the entries of `new` where `condition` holds."""
    return {key: jnp.where(condition, value, old[key]) for key, value in new.items()}


class _Zoom(NamedTuple):
    done: object
    failed: object
    j: object
    a_lo: object
    phi_lo: object
    dphi_lo: object
    a_hi: object
    phi_hi: object
    dphi_hi: object
    a_rec: object
    phi_rec: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object
    nfev: object
    ngev: object


def _zoom(along, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi, dphi_hi, g_0, skip):
    """Narrows [a_lo, a_hi] to a step meeting the strong Wolfe conditions: the cubic through
    the last three points, else the parabola, else bisection (algorithm 3.6)."""
    state = _Zoom(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi,
                  phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
                  a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)

    def body(state):
        width = state.a_hi - state.a_lo
        low, high = jnp.minimum(state.a_hi, state.a_lo), jnp.maximum(state.a_hi, state.a_lo)
        cubic_margin, quad_margin = 0.2 * width, 0.1 * width
        threshold = jnp.where(jnp.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        state = state._replace(failed=state.failed | (width <= threshold))

        cubic = _cubic_min(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi, state.a_rec,
                           state.phi_rec)
        use_cubic = (state.j > 0) & (cubic > low + cubic_margin) & (cubic < high - cubic_margin)
        quad = _quad_min(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi)
        use_quad = (~use_cubic) & (quad > low + quad_margin) & (quad < high - quad_margin)
        use_bisection = (~use_cubic) & (~use_quad)
        a_j = jnp.where(use_cubic, cubic, state.a_rec)
        a_j = jnp.where(use_quad, quad, a_j)
        a_j = jnp.where(use_bisection, (state.a_lo + state.a_hi) / 2.0, a_j)

        phi_j, dphi_j, g_j = along(a_j)
        phi_j = phi_j.astype(state.phi_lo.dtype)
        dphi_j = dphi_j.astype(state.dphi_lo.dtype)
        g_j = g_j.astype(state.g_star.dtype)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= state.phi_lo)
        star_to_j = wolfe_two(dphi_j) & (~hi_to_j)
        hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.0) & (~hi_to_j) & (~star_to_j)
        lo_to_j = (~hi_to_j) & (~star_to_j)

        fields = state._asdict()
        state = state._replace(**_pick(hi_to_j, fields, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                                              a_rec=state.a_hi, phi_rec=state.phi_hi)))
        fields = state._asdict()
        state = state._replace(done=star_to_j | state.done,
                               **_pick(star_to_j, fields, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                                               g_star=g_j)))
        fields = state._asdict()
        state = state._replace(**_pick(hi_to_lo, fields, dict(a_hi=state.a_lo, phi_hi=state.phi_lo,
                                                               dphi_hi=state.dphi_lo, a_rec=state.a_hi,
                                                               phi_rec=state.phi_hi)))
        fields = state._asdict()
        state = state._replace(**_pick(lo_to_j & ~hi_to_lo, fields, dict(a_rec=state.a_lo, phi_rec=state.phi_lo)))
        fields = state._asdict()
        state = state._replace(**_pick(lo_to_j, fields, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)))
        state = state._replace(j=state.j + 1)
        return state._replace(failed=state.failed | (state.j >= 30))

    return lax.while_loop(lambda s: (~s.done) & (~skip) & (~s.failed), body, state)


class _Search(NamedTuple):
    done: object
    failed: object
    i: object
    a_i1: object
    phi_i1: object
    dphi_i1: object
    nfev: object
    ngev: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object


class _SearchResults(NamedTuple):
    failed: object
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object
    f_k: object
    g_k: object
    status: object


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step along pk meeting the strong Wolfe conditions (algorithm 3.5)."""
    dtype = jnp.result_type(xk, pk, float)
    xk, pk = jnp.asarray(xk, dtype=dtype), jnp.asarray(pk, dtype=dtype)

    def along(t):
        t = jnp.array(t, dtype=pk.dtype)
        phi, g = jax.value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    given = old_fval is not None and gfk is not None
    if given:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    else:
        phi_0, dphi_0, gfk = along(0)
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start = 1

    def wolfe_one(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    state = _Search(done=jnp.array(False), failed=jnp.array(False), i=1, a_i1=0.0, phi_i1=phi_0, dphi_i1=dphi_0,
                    nfev=0 if given else 1, ngev=0 if given else 1, a_star=0.0, phi_star=phi_0, dphi_star=dphi_0,
                    g_star=gfk)

    def body(state):
        a_i = jnp.where(state.i == 1, start, state.a_i1 * 2.0)
        phi_i, dphi_i, g_i = along(a_i)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)
        star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= state.phi_i1) & (state.i > 1))
        star_to_i = wolfe_two(dphi_i) & (~star_to_zoom1)
        star_to_zoom2 = (dphi_i >= 0.0) & (~star_to_zoom1) & (~star_to_i)

        zoom1 = _zoom(along, wolfe_one, wolfe_two, state.a_i1, state.phi_i1, state.dphi_i1, a_i, phi_i, dphi_i, gfk,
                      ~star_to_zoom1)
        state = state._replace(nfev=state.nfev + zoom1.nfev, ngev=state.ngev + zoom1.ngev)
        zoom2 = _zoom(along, wolfe_one, wolfe_two, a_i, phi_i, dphi_i, state.a_i1, state.phi_i1, state.dphi_i1, gfk,
                      ~star_to_zoom2)
        state = state._replace(nfev=state.nfev + zoom2.nfev, ngev=state.ngev + zoom2.ngev)

        found = ["a_star", "phi_star", "dphi_star", "g_star"]
        fields = state._asdict()
        zoomed = zoom1._asdict()
        state = state._replace(done=star_to_zoom1 | state.done, failed=(star_to_zoom1 & zoom1.failed) | state.failed,
                               **_pick(star_to_zoom1, fields, {k: zoomed[k] for k in found}))
        fields = state._asdict()
        state = state._replace(done=star_to_i | state.done,
                               **_pick(star_to_i, fields, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                                               g_star=g_i)))
        fields = state._asdict()
        zoomed = zoom2._asdict()
        state = state._replace(done=star_to_zoom2 | state.done, failed=(star_to_zoom2 & zoom2.failed) | state.failed,
                               **_pick(star_to_zoom2, fields, {k: zoomed[k] for k in found}))
        return state._replace(i=state.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(lambda s: (~s.done) & (s.i <= maxiter) & (~s.failed), body, state)
    status = jnp.where(state.failed, jnp.array(1), jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    alpha = jnp.asarray(state.a_star)
    alpha = jnp.where((jnp.finfo(alpha.dtype).bits != 64) & (jnp.abs(alpha) < 1e-8), jnp.sign(alpha) * 1e-8, alpha)
    return _SearchResults(failed=state.failed | (~state.done), nit=state.i - 1, nfev=state.nfev, ngev=state.ngev,
                          k=state.i, a_k=alpha, f_k=state.phi_star, g_k=state.g_star, status=status)


class _BFGS(NamedTuple):
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def _minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = jax.value_and_grad(fun)(x0)
    state = _BFGS(converged=jnp.linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1, ngev=1, nhev=0,
                  x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=x0.dtype),
                  old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, status=0, line_search_status=0)

    def body(state):
        p_k = -_dot(state.H_k, state.g_k)
        search = line_search(fun, state.x_k, p_k, old_fval=state.f_k, old_old_fval=state.old_old_fval,
                             gfk=state.g_k, maxiter=line_search_maxiter)
        state = state._replace(nfev=state.nfev + search.nfev, ngev=state.ngev + search.ngev, failed=search.failed,
                               line_search_status=search.status)
        s_k = search.a_k * p_k
        y_k = search.g_k - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        H_next = (jnp.einsum("ij,jk,lk", w, state.H_k, w, precision=lax.Precision.HIGHEST)
                  + rho_k * s_k[:, None] * s_k[None, :])
        H_next = jnp.where(jnp.isfinite(rho_k), H_next, state.H_k)
        return state._replace(converged=jnp.linalg.norm(search.g_k, ord=norm) < gtol, k=state.k + 1,
                              x_k=state.x_k + s_k, f_k=search.f_k, g_k=search.g_k, H_k=H_next,
                              old_old_fval=state.f_k)

    state = lax.while_loop(lambda s: (~s.converged) & (~s.failed) & (s.k < maxiter), body, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1, jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)


class OptimizeResults(NamedTuple):
    """What `minimize` returns (JAX's NamedTuple of that name)."""
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    if options is None:
        options = {}
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    if method.lower() != "bfgs":
        if method.lower() == "l-bfgs-experimental-do-not-rely-on-this":
            raise NotImplementedError(f"jax.scipy.optimize.minimize method={method!r} is not supported by the playground yet")
        raise ValueError(f"Method {method} not recognized")
    results = _minimize_bfgs(lambda x: fun(x, *args), x0, **options)
    return OptimizeResults(x=results.x_k, success=results.converged & jnp.logical_not(results.failed),
                           status=results.status, fun=results.f_k, jac=results.g_k, hess_inv=results.H_k,
                           nfev=results.nfev, njev=results.ngev, nit=results.k)
