# jax.random.randint is not there yet.
import jax

key = jax.random.PRNGKey(0)
x = jax.random.randint(key, (3,), 0, 10)
