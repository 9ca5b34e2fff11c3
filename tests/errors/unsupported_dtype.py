# float16 is not one of the playground's dtypes. (float64 without x64 is JAX's float32, with
# JAX's warning, as in JAX.)
import jax.numpy as jnp

x = jnp.ones(3, dtype=jnp.float16)
