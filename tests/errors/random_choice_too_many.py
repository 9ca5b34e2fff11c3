# Drawing more elements than there are, without replacement: JAX's message.
import jax

key = jax.random.PRNGKey(0)
picks = jax.random.choice(key, 5, (6,), replace=False)
