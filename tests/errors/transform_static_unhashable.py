# An array passed as a static argument (static arguments must be hashable).
import jax
import jax.numpy as jnp

f = jax.jit(lambda x, n: x * n, static_argnums=1)
print(f(jnp.ones(2), jnp.ones(2)))
