"""jax.experimental.ode: odeint, adaptive Dormand-Prince (RK45) integration.

The algorithm is JAX's, step for step, so the same steps are taken and accepted: the initial
step of Hairer, Norsett and Wanner (Solving ODEs I, II.4); each step a Dormand-Prince pair
with its error estimate, accepted when the RMS of the error over the tolerance is at most 1;
the next step from the error's 5th root (safety 0.9, growing at most 10x, shrinking at most 5x
after a rejection); the output at each requested time from the 4th-order polynomial fitted to
the last step. The steps run in a `while_loop` inside a `scan` over the requested times, at
HIGHEST matmul precision. Reverse-mode derivatives integrate the adjoint system backwards
(Chen et al. 2018, appendix C), as JAX's custom VJP does.
"""

import operator

import jax
import jax.numpy as jnp
from jax import lax

_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0.0]
_BETA = [
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [
    35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
    -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1.0 / 60.0,
]
# The midpoint of a step, for the interpolating polynomial (Shampine's dense output).
_C_MID = [
    6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2,
]


def _ravel(tree):
    """The leaves of `tree` as one flat vector, and the function that rebuilds the tree."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    leaves = [jnp.asarray(x) for x in leaves]
    shapes = [x.shape for x in leaves]
    sizes = [x.size for x in leaves]
    flat = jnp.concatenate([jnp.ravel(x) for x in leaves]) if leaves else jnp.zeros(0)

    def unravel(v):
        parts, at = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(v[at:at + size].reshape(shape))
            at += size
        return jax.tree_util.tree_unflatten(treedef, parts)

    return flat, unravel


def _fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt):
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    d = dt * dy0
    e = y0
    return a, b, c, d, e


def _interp_fit(y0, y1, k, dt):
    y_mid = y0 + dt * jnp.dot(jnp.array(_C_MID, dtype=y0.dtype), k)
    return jnp.asarray(_fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt))


def _initial_step_size(fun, t0, y0, order, rtol, atol, f0):
    scale = atol + jnp.abs(y0) * rtol
    d0 = jnp.linalg.norm(y0 / scale)
    d1 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    y1 = y0 + h0 * f0
    f1 = fun(y1, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15),
                   jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1. / (order + 1.)))
    return jnp.minimum(100. * h0, h1)


def _runge_kutta_step(func, y0, f0, t0, dt):
    alpha = jnp.array(_ALPHA, dtype=dt.dtype)
    beta = jnp.array(_BETA, dtype=f0.dtype)

    def body(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + dt * jnp.dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, ti))

    k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lax.fori_loop(1, 7, body, k)
    y1 = dt * jnp.dot(jnp.array(_C_SOL, dtype=f0.dtype), k) + y0
    y1_error = dt * jnp.dot(jnp.array(_C_ERROR, dtype=f0.dtype), k)
    return y1, k[-1], y1_error, k


def _mean_error_ratio(error_estimate, rtol, atol, y0, y1):
    err_tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = error_estimate / err_tol
    return jnp.sqrt(jnp.mean(ratio ** 2))


def _optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    dfactor = jnp.where(mean_error_ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(mean_error_ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


def _clip(x, low, high):
    return jnp.minimum(jnp.maximum(x, low), high)


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=jnp.inf, hmax=jnp.inf):
    """The solution `y` of dy/dt = func(y, t, *args) at each time of `t` (increasing), from
    y(t[0]) = y0 (an array or a pytree of arrays): `y0`'s structure with a leading axis of
    len(t)."""
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    return _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, t, *args)


def _wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    flat, unravel = _ravel(y0)

    def flat_func(y, t, *args):
        return _ravel(func(unravel(y), t, *args))[0]

    out = _odeint(flat_func, rtol, atol, mxstep, hmax, flat, ts, *args)
    return jax.vmap(unravel)(out)


# One program, as JAX jits it: the function and the tolerances are static.
_odeint_wrapper = jax.jit(_wrapper, static_argnums=(0, 1, 2, 3, 4))


def _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    with jax.default_matmul_precision("highest"):
        func_ = lambda y, t: func(y, t, *args)

        def scan_fun(carry, target_t):
            def cond_fun(state):
                i, _, _, t, dt, _, _ = state
                return (t < target_t) & (i < mxstep) & (dt > 0)

            def body_fun(state):
                i, y, f, t, dt, last_t, interp_coeff = state
                next_y, next_f, next_y_error, k = _runge_kutta_step(func_, y, f, t, dt)
                next_t = t + dt
                error_ratio = _mean_error_ratio(next_y_error, rtol, atol, y, next_y)
                new_interp_coeff = _interp_fit(y, next_y, k, dt)
                dt = _clip(_optimal_step_size(dt, error_ratio), 0., hmax)
                new = [i + 1, next_y, next_f, next_t, dt, t, new_interp_coeff]
                old = [i + 1, y, f, t, dt, last_t, interp_coeff]
                accept = error_ratio <= 1.
                return [jnp.where(accept, a, b) for a, b in zip(new, old)]

            _, *carry = lax.while_loop(cond_fun, body_fun, [0] + carry)
            _, _, t, _, last_t, interp_coeff = carry
            relative_output_time = (target_t - last_t) / (t - last_t)
            # Horner's rule, as jnp.polyval evaluates it.
            y_target = jnp.zeros_like(interp_coeff[0])
            for c in interp_coeff:
                y_target = y_target * relative_output_time + c
            return carry, y_target

        f0 = func_(y0, ts[0])
        dt = _clip(_initial_step_size(func_, ts[0], y0, 4, rtol, atol, f0), 0., hmax)
        interp_coeff = jnp.array([y0] * 5)
        init_carry = [y0, f0, ts[0], dt, ts[0], interp_coeff]
        _, ys = lax.scan(scan_fun, init_carry, ts[1:])
        return jnp.concatenate((y0[None], ys))


_odeint = jax.custom_vjp(_solve, nondiff_argnums=(0, 1, 2, 3, 4))


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
    ys, ts, args = res

    def aug_dynamics(augmented_state, t, *args):
        # The system with its adjoint: vjp_y, vjp_t and vjp_args.
        y, y_bar, *_ = augmented_state
        y_dot, vjpfun = jax.vjp(func, y, -t, *args)
        return (-y_dot, *vjpfun(y_bar))

    def scan_fun(carry, i):
        y_bar, t0_bar, args_bar = carry
        # The effect of moving the measurement time.
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i])
        t0_bar = t0_bar - t_bar
        # The augmented system run backwards to the previous time.
        _, y_bar, t0_bar, args_bar = odeint(
            aug_dynamics, (ys[i], y_bar, t0_bar, args_bar), jnp.array([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = jax.tree_util.tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        # The gradient from the output at this time.
        y_bar = y_bar + g[i - 1]
        return (y_bar, t0_bar, args_bar), t_bar

    init_carry = (g[-1], 0., jax.tree_util.tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = lax.scan(scan_fun, init_carry, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
