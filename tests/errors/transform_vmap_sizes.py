# vmap over arguments whose mapped axes have different sizes.
import jax
import jax.numpy as jnp

f = jax.vmap(lambda a, b: a * b)
print(f(jnp.ones(3), jnp.ones(4)))
