# jax.random.dirichlet is not there yet.
import jax

key = jax.random.PRNGKey(0)
x = jax.random.dirichlet(key, jax.numpy.ones(3))
