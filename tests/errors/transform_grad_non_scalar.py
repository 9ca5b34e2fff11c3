# grad of a function whose output is not a scalar.
import jax
import jax.numpy as jnp

g = jax.grad(lambda x: jnp.tanh(x))
print(g(jnp.ones(3)))
