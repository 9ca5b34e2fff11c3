"""lax control flow that JAX writes in Python on top of its primitives. lax.fori_loop: with
bounds known while tracing, a scan over (i, carry) of length upper - lower, so it stages as one
`scan` equation (and reverse mode runs through it); with bounds known only when the program
runs, a while_loop over (i, upper, carry), one `while` equation. And lax.cond's old
five-argument form."""

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


def fori_loop_scan(lower, upper, body_fun, init_val, unroll):
    def scanned_fun(loop_carry, _):
        i, x = loop_carry
        return (i + 1, body_fun(i, x)), None

    if unroll is None:
        unroll = False
    (_, result), _ = lax.scan(scanned_fun, (lower, init_val), None, length=max(upper - lower, 0), unroll=unroll)
    return result


def cond_with_operands(pred, true_operand, true_fun, false_operand, false_fun):
    """`lax.cond(pred, true_operand, true_fun, false_operand, false_fun)`, the deprecated form
    JAX still accepts: each branch takes both operands and uses its own."""
    return lax.cond(pred, lambda x, _: true_fun(x), lambda _, x: false_fun(x), true_operand, false_operand)
