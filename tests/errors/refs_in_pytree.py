# A ref inside a pytree argument of a transformation: refused with what does take refs.
import jax
import jax.numpy as jnp

r = jax.new_ref(jnp.zeros(3))
print(jax.jit(lambda d: d["r"][0])({"r": r}))
