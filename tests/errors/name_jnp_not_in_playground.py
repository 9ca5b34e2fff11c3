# jnp.histogram exists in JAX but not (yet) in the playground: the message says so, rather than
# claiming the attribute does not exist.
import jax.numpy as jnp

print("before")
x = jnp.histogram(jnp.arange(5.0))
