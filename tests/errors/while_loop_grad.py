# Reverse mode cannot run a while loop backwards (its trip count is data), as in JAX.
import jax
from jax import lax


def power(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]


print(jax.jacfwd(power)(1.5))
print(jax.grad(power)(1.5))
