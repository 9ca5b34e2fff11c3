# A plain int where a key is expected (JAX wants jax.random.PRNGKey(0)).
import jax

print(jax.random.uniform(0, (2,)))
