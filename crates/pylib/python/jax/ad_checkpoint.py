"""jax.ad_checkpoint: `checkpoint` (remat) and `checkpoint_name`, which names a value for a
checkpoint policy and leaves it unchanged."""

import jax

checkpoint = jax.checkpoint
remat = jax.checkpoint
checkpoint_policies = jax.checkpoint_policies


def checkpoint_name(x, name):
    # JAX binds a `name` primitive on each leaf: the value unchanged, named for a checkpoint
    # policy (save_only_these_names, ...).
    from _playground import checkpoint_name as named
    return jax.tree_util.tree_map(lambda leaf: named(leaf, name), x)


def print_saved_residuals(f, *args, **kwargs):
    """What reverse mode keeps from the forward pass of f at args, one line each."""
    from functools import partial
    from _playground import saved_residuals
    if kwargs:
        f = partial(f, **kwargs)
    for aval, src in saved_residuals(f, args):
        print(f"{aval} {src}")
