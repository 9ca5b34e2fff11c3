# A different precision for each operand of one matmul.
import jax
import jax.lax as lax
import jax.numpy as jnp

a = jnp.ones((2, 2))
print(jnp.dot(a, a, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)))
