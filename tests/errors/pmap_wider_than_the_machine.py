# jax.pmap over more devices than the machine has (the default machine is one v5e chip).
import jax
import jax.numpy as jnp

f = jax.pmap(lambda x: x * 2)
print(f(jnp.ones((4, 3))))
