# feature_group_count that does not divide the channels: refused with the numbers.
import jax.numpy as jnp
from jax import lax

x = jnp.ones((1, 3, 5, 5))
w = jnp.ones((4, 1, 3, 3))
y = lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)
