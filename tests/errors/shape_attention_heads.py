# Grouped-query attention (fewer key/value heads than query heads).
import jax
import jax.numpy as jnp

q = jnp.ones((1, 4, 4, 8))
kv = jnp.ones((1, 4, 2, 8))
print(jax.nn.dot_product_attention(q, kv, kv))
