# vmap of a grad with Python `if`: each example's value is abstract under vmap (JAX refuses it too).
import jax
import jax.numpy as jnp

f = lambda v: v if v > 0 else -v
print(jax.vmap(jax.grad(f))(jnp.array([1.0, -2.0])))
