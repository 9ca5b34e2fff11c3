"""jax.test_util: check_grads, comparing derivatives with finite differences."""

import jax
import jax.numpy as jnp
from jax.tree_util import tree_leaves, tree_map, tree_structure, tree_unflatten

_EPS = 1e-2
_TOL = {"float32": 2e-2, "bfloat16": 1e-1}


def _tol(x, atol, rtol):
    default = _TOL.get(str(jnp.asarray(x).dtype), 2e-2)
    return default if atol is None else atol, default if rtol is None else rtol


def _check_close(x, y, atol, rtol, what):
    for a, b in zip(tree_leaves(x), tree_leaves(y)):
        at, rt = _tol(a, atol, rtol)
        if not jnp.allclose(jnp.asarray(a), jnp.asarray(b), atol=at, rtol=rt):
            raise AssertionError(f"{what}: derivatives differ from finite differences\n{a}\nvs\n{b}")


def _scale(tree, s):
    return tree_map(lambda x: x * s, tree)


def _add(*trees):
    return tree_map(lambda *xs: sum(xs[1:], xs[0]), *trees)


def _random_like(key, tree):
    leaves = tree_leaves(tree)
    keys = jax.random.split(key, max(len(leaves), 1))
    drawn = [jax.random.normal(k, jnp.shape(x)) for k, x in zip(keys, leaves)]
    return tree_unflatten(tree_structure(tree), drawn)


def _numerical_jvp(f, primals, tangents, eps):
    up = f(*_add(primals, _scale(tangents, eps)))
    down = f(*_add(primals, _scale(tangents, -eps)))
    return _scale(_add(up, _scale(down, -1.0)), 0.5 / eps)


def _vdot(x, y):
    return sum(jnp.vdot(a, b) for a, b in zip(tree_leaves(x), tree_leaves(y)))


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=_EPS, err_msg=""):
    tangent = _random_like(jax.random.key(0), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    _check_close(t_out, _numerical_jvp(f, args, tangent, eps), atol, rtol, f"{err_msg} tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=_EPS, err_msg=""):
    v_out, vjpfun = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    tangent = _random_like(jax.random.key(1), args)
    cotangent = _random_like(jax.random.key(2), v_out)
    ct_in = vjpfun(cotangent)
    ip = _vdot(tangent, ct_in)
    ip_expected = _vdot(_numerical_jvp(f, args, tangent, eps), cotangent)
    _check_close(ip, ip_expected, atol, rtol, f"{err_msg} VJP")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Checks f's derivatives to `order` against finite differences, as JAX's check_grads."""
    args = tuple(args)
    eps = eps or _EPS

    def _check(fun, order):
        if "fwd" in modes:
            check_jvp(fun, lambda p, t: jax.jvp(fun, p, t), args, atol, rtol, eps, "JVP")
            if order > 1:
                _check(lambda *a: jax.jvp(fun, a, _random_like(jax.random.key(3), a))[1], order - 1)
        if "rev" in modes:
            check_vjp(fun, lambda *a: jax.vjp(fun, *a), args, atol, rtol, eps, "VJP")
            if order > 1:

                def f_vjp(*a):
                    out, vjpfun = jax.vjp(fun, *a)
                    return vjpfun(_random_like(jax.random.key(4), out))

                _check(f_vjp, order - 1)

    _check(f, order)
