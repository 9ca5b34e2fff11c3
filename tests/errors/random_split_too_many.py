# Splitting a key into a billion keys: refused before 8 GB of keys are allocated.
import jax

keys = jax.random.split(jax.random.PRNGKey(0), 1000000000)
