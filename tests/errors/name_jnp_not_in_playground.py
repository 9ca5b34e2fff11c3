# jnp.linspace exists in JAX but not (yet) in the playground: the message says so, rather than
# claiming the attribute does not exist.
import jax.numpy as jnp

print("before")
x = jnp.linspace(0.0, 1.0, 5)
