# jax.random.normal with a shape that is not a tuple of ints.
import jax

key = jax.random.PRNGKey(0)
print(jax.random.normal(key, 3.5))
