# nondiff_argnums is not there yet: the message says what to do instead.
from functools import partial

import jax


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def f(n, x):
    return x**n


print(f(2, 3.0))
