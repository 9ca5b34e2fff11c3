# jax.random.gamma is not there yet.
import jax

key = jax.random.PRNGKey(0)
x = jax.random.gamma(key, 2.0, (3,))
