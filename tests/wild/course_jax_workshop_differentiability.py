# Source: https://github.com/AdrienCorenflos/jax-workshop/blob/bbeec0056b116780ade259db0072506230fadc98/notebooks/differentiability/differentiability.ipynb (Adrien Corenflos, JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the raising last statement of 1 other such cell(s) dropped, the rest of those cells kept); synthetic data seeded (np.random.seed(0) added before the unseeded np.random data)
# Ignore lines matching:  at 0x[0-9a-f]+

import jax
from jax import grad, jvp, vjp, jacfwd, jacrev, linearize
import jax.numpy as jnp

import numpy as np

def my_fun(x, y):
    return x * jnp.sin(y) + jnp.cos(x)

print(jvp(my_fun, (0.5, 0.75), (1.0, 1.0)))

val, my_fun_vjp = vjp(my_fun, 0.5, 0.75)
print(val)
print(my_fun_vjp)

print(my_fun_vjp(1.0))

print(jacfwd(my_fun, argnums=(0, 1))(0.5, 1.0))

print(jacrev(my_fun, argnums=(0, 1))(0.5, 1.0))

from functools import partial

from jax import custom_jvp, custom_jvp, jvp, vjp, make_jaxpr
from jax.lax import scan, while_loop
import jax.numpy as jnp

import numpy as np

def log1p(x):
    return 1.0 / jnp.log(1 + jnp.exp(x))

val, log1p_vjp = vjp(log1p, 100.0)
print(val)
print(log1p_vjp(1.0))

print(make_jaxpr(log1p_vjp)(1.0))

log1p = custom_jvp(log1p)

@log1p.defjvp
def _log1p_jvp(primals, tangents):
    (x,) = primals
    x_dot = (tangents,)

    ex = jnp.exp(x)
    primal_out = 1.0 / jnp.log(1 + ex)

    ex_inv = 1 / ex
    tangent_out = 1 / ((1 + ex_inv) * primal_out**2)
    return primal_out, tangent_out

# otherwise:
# log1p.defjvps(lambda x_dot, primal_out, x: ...)

val, log1p_vjp = vjp(log1p, 100.0)
print(val)
print(log1p_vjp(1.0))

def while_loop_sqrt(x, x0=1.0, n_iter=10):

    def cond(carry):
        i, _val = carry
        return i < n_iter

    def body(carry):
        i, val = carry
        return i + 1, 0.5 * (val + x / val)

    _, res = while_loop(cond, body, (0, x0))
    return res

val, while_loop_sqrt_vjp = vjp(while_loop_sqrt, 100.0)
print(val)

@partial(custom_jvp, nondiff_argnums=(1, 2))
def custom_jvp_while_loop_sqrt(x, x0=1.0, n_iter=10):
    sqrt_x = while_loop_sqrt(x, x0, n_iter)
    return sqrt_x

@custom_jvp_while_loop_sqrt.defjvp
def _custom_jvp_while_loop_sqrt(x0, n_iter, primals, tangents):
    (x,) = primals
    (x_dot,) = tangents
    sqrt_x = while_loop_sqrt(x, x0, n_iter)
    return sqrt_x, x_dot / (2 * sqrt_x)

print(custom_jvp_while_loop_sqrt(5.0))

val, while_loop_sqrt_vjp = vjp(custom_jvp_while_loop_sqrt, 100.0)
print(val)
print(while_loop_sqrt_vjp(1.0))

from jax import make_jaxpr, jvp, vjp, jit, linearize, vmap
from jax.lax import associative_scan, scan
from jax.random import normal, PRNGKey

import jax.numpy as jnp
import numpy as np

np.random.seed(0)
D = 5
a = np.random.randn(D, D)
b = np.random.randn(D)

def affine_function(x):
    return a @ x + b

print(np.trace(a))

x = np.random.randn(D)

def compute_jac_trace(f, x):
    d = x.shape[0]
    eis = jnp.eye(d)
    val, lin_jvp = linearize(f, x)
    temp = vmap(lin_jvp)(eis)
    return jnp.trace(temp)

print(compute_jac_trace(affine_function, x))
