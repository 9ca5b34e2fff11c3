# jnp.prod is traced as a chain of multiplies (the emulated TPU has no product reduction), so it
# takes at most 4096 factors.
import jax.numpy as jnp

print(jnp.prod(jnp.ones(5000)))
