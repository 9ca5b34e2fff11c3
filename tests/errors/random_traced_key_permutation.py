# A draw the playground makes only from a concrete key, given a traced one.
import jax

@jax.jit
def labels(key):
    return jax.random.randint(key, (4,), 0, 10)

print(labels(jax.random.PRNGKey(0)))
