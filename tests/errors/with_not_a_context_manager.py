# with needs a context manager; the playground has jax.default_matmul_precision.
import jax.numpy as jnp

with jnp.ones(3) as x:
    print(x)
