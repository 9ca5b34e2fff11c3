# inv, solve and det take square matrices in their last two axes.
import jax.numpy as jnp

print(jnp.linalg.inv(jnp.ones((2, 3))))
