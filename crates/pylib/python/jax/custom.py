"""Helpers for jax.custom_jvp written in Python."""

import jax.numpy as jnp


def jvps_rule(fun, jvps):
    """The `defjvp` rule `defjvps(*jvps)` stands for: each argument's tangent through its own
    rule (`jvp(g, ans, *primals)`; None for an argument with no derivative), summed."""

    def rule(primals, tangents):
        ans = fun(*primals)
        total = None
        for jvp, g in zip(jvps, tangents):
            if jvp is None:
                continue
            term = jvp(g, ans, *primals)
            total = term if total is None else total + term
        return ans, jnp.zeros_like(ans) if total is None else total

    return rule
