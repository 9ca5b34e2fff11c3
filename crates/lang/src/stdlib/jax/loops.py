"""lax.fori_loop with bounds known only when the program runs, written as JAX writes it: a
while_loop over (i, upper, carry), so it stages as one `while` equation. (With bounds known
while tracing, the playground's fori_loop unrolls the loop.)"""

from jax import lax
import jax.numpy as jnp


def fori_loop_while(lower, upper, body_fun, init_val):
    lower_dtype, upper_dtype = jnp.result_type(lower), jnp.result_type(upper)
    if lower_dtype != upper_dtype:
        dtype = jnp.promote_types(lower_dtype, upper_dtype)
        lower, upper = jnp.asarray(lower).astype(dtype), jnp.asarray(upper).astype(dtype)

    def cond(carry):
        i, upper, _ = carry
        return i < upper

    def body(carry):
        i, upper, x = carry
        return i + 1, upper, body_fun(i, x)

    return lax.while_loop(cond, body, (lower, upper, init_val))[2]
