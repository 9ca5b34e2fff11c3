# A draw the playground makes only from a concrete key, given a traced one.
import jax

@jax.jit
def order(key):
    return jax.random.permutation(key, 10)

print(order(jax.random.PRNGKey(0)))
