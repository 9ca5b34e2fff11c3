# A while_loop whose trip count depends on a traced value cannot be unrolled while tracing.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def halvings(x):
    return lax.while_loop(lambda c: c[0] > 1.0, lambda c: (c[0] / 2.0, c[1] + 1), (x, 0))[1]


print(halvings(jnp.float32(40.0)))
