# The playground sorts by counting (n² comparisons per row, no sort instruction yet): a row
# long enough to make that unreasonable is refused with the numbers, not left to run.
import jax.numpy as jnp

x = jnp.ones((4, 8192))
y = jnp.sort(x, axis=1)
