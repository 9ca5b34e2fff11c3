# A scan and a cond on the machine: the scan is a `while` on a row counter in s5, its body
# reading row s5 of xs at an address the counter moves (hbm[BASE+ROW*s5]) and writing its row of
# ys the same way; the cond loads its index into s1, clamps it to the branches, and runs one
# branch in an `if`, each branch copying its result into the same buffer.
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def f(p, xs):
    total, prefix = lax.scan(lambda c, x: (c + x, c), jnp.zeros(3), xs)
    return lax.cond(p, lambda t: t * 2.0, lambda t: t - 1.0, total), prefix

print(f(True, jnp.arange(12.0).reshape(4, 3)))
print(f(False, jnp.ones((2, 3))))
