# A Python int that does not fit int32, made into an array.
import jax.numpy as jnp

print(jnp.array(3000000000))
