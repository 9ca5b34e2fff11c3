# einsum: the label j is 4 in one operand and 5 in the other.
import jax.numpy as jnp

a = jnp.ones((3, 4))
b = jnp.ones((5, 6))
print(jnp.einsum("ij,jk->ik", a, b))
