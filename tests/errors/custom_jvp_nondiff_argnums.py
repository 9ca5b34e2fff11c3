# nondiff_argnums names an argument the call does not have.
from functools import partial

import jax


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def f(n, x):
    return x**n


@f.defjvp
def f_jvp(k, primals, tangents):
    return f(*primals), tangents[1]


print(jax.grad(f, argnums=1)(2, 3.0))
