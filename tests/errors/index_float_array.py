# An array of floats is not an index (JAX: "Indexer must have integer or boolean type").
import jax.numpy as jnp

x = jnp.arange(5.0)
print(x[jnp.array([0.0, 2.0])])
