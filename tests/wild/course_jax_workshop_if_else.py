# Source: https://github.com/AdrienCorenflos/jax-workshop/blob/bbeec0056b116780ade259db0072506230fadc98/notebooks/controlflow/if-else.ipynb (Adrien Corenflos, JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); 1 cell(s) whose saved output is an error dropped; the raising last statement of 2 other such cell(s) dropped, the rest of those cells kept)
# Ignore lines matching:  at 0x[0-9a-f]+

from jax import jit
from jax.lax import cond
import jax.numpy as jnp

def my_abs(x):
    return x if x > 0 else -x

print(my_abs(jnp.asarray(-5.0)))

def jax_abs(x):
    predicate = x > 0

    def true_fun(z):
        return z

    def false_fun(z):
        return -z

    result = cond(
        predicate,  # predicate for the if
        true_fun,  # function to call on operand if predicate is true
        false_fun,  # function to call on operand otherwise
        operand=x,  # operand to be passed to either true_fun or false_fun
    )

    return result

print(jax_abs(-5.0))

def compact_jax_abs(x):
    return cond(x > 0, lambda z: z, lambda z: -z, operand=x)

print(compact_jax_abs(-5.0))

def other_jax_abs(x):
    return cond(x > 0, lambda z: z[0], lambda z: z[1], operand=(x, -x))

print(other_jax_abs(-5.0))

def piecewise_constant(x, a, b, c):
    pass

from jax import vmap
from jax.lax import cond

import jax.numpy as jnp

import numpy as np

arr = np.array([-1.0, 0.0, 1.0])

def jax_abs(x):
    predicate = x > 0

    def true_fun(z):
        return z

    def false_fun(z):
        return -z

    result = cond(
        predicate,  # predicate for the if
        true_fun,  # function to call on operand if predicate is true
        false_fun,  # function to call on operand otherwise
        operand=x,  # operand to be passed to either true_fun or false_fun
    )

    return result

def jax_numpy_abs(x):
    return jnp.where(x > 0, x, -x)

print(jax_numpy_abs(arr))

vmap_abs = vmap(jax_abs)
print(vmap_abs(arr))

vectorized_abs = jnp.vectorize(jax_abs, signature="()->()")
print(vectorized_abs(arr))

from jax import make_jaxpr
from jax.lax import cond, switch
import jax.numpy as jnp

import numpy as np

def piecewise_constant(x, xs, ys):
    # len(xs) = len(ys) - 2
    # xs are considered to be sorted
    if x < xs[0]:
        return ys[0]
    for xi, yi in zip(xs, ys[:-1]):
        if x >= xi:
            continue
        return yi
    return ys[-1]

arr_xs = np.array([-1.0, 0.0, 1.0])
arr_ys = np.array([0.2, 0.4, 0.0, 0.1])

arr_x = np.array([0.5, -2.0, 3.0, -1.5, -0.4])

print(help(switch))

def jax_abs_switch(x):
    branches = [lambda z: -z, lambda z: z]
    index = jnp.asarray(x > 0, jnp.int32)
    return switch(index, branches, x)

print(jax_abs_switch(5.0))

print(make_jaxpr(jax_abs_switch)(-5.0))

print(make_jaxpr(compact_jax_abs)(-5.0))
