"""jax.ad_checkpoint: `checkpoint` (remat) and `checkpoint_name`, which names a value for a
checkpoint policy and leaves it unchanged."""

import jax

checkpoint = jax.checkpoint
remat = jax.checkpoint
checkpoint_policies = jax.checkpoint_policies


def checkpoint_name(x, name):
    # JAX binds a `name` primitive on each leaf: an identity on values. What it changes is
    # what a checkpoint policy keeps, which the playground does not model (see
    # print_saved_residuals).
    from _playground import remat_used
    remat_used()
    return x


def print_saved_residuals(f, *args, **kwargs):
    """What reverse mode keeps from the forward pass of f at args, one line each."""
    from functools import partial
    from _playground import saved_residuals
    if kwargs:
        f = partial(f, **kwargs)
    for aval, src in saved_residuals(f, args):
        print(f"{aval} {src}")
