"""jax.example_libraries.optimizers: optimizers as (init, update, get_params) triples.

Each optimizer is written for one array and lifted to pytrees of parameters, as in JAX. The
state is a tuple of pytrees shaped like the parameters (the parameters, then each per-array
statistic), where JAX packs it into an `OptimizerState` node: the same values, as an ordinary
pytree the playground's `jit` and `tree_util` take.
"""

import functools

import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten


def _wrap(state):
    return state if isinstance(state, tuple) else (state,)


def optimizer(opt_maker):
    """Lifts an optimizer for one array to one for pytrees of arrays."""

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)
        single = []

        def unwrap(state):
            return state[0] if single[0] else state

        def columns(per_leaf, tree):
            width = len(per_leaf[0]) if per_leaf else 1
            return tuple(tree_unflatten(tree, [s[j] for s in per_leaf]) for j in range(width))

        def per_leaf(opt_state):
            leaves = [tree_leaves(column) for column in opt_state]
            return [tuple(column[n] for column in leaves) for n in range(len(leaves[0]))]

        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            states = [init(x0) for x0 in x0_flat]
            single[:] = [not states or not isinstance(states[0], tuple)]
            return columns([_wrap(s) for s in states], tree)

        def tree_update(i, grad_tree, opt_state):
            grad_flat, tree = tree_flatten(grad_tree)
            if tree != tree_structure(opt_state[0]):
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match "
                    f"the parameter tree structure with which it was initialized: parameter "
                    f"tree {tree_structure(opt_state[0])} and grad tree {tree}."
                )
            states = [_wrap(update(i, g, unwrap(s))) for g, s in zip(grad_flat, per_leaf(opt_state))]
            return columns(states, tree)

        def tree_get_params(opt_state):
            tree = tree_structure(opt_state[0])
            return tree_unflatten(tree, [get_params(unwrap(s)) for s in per_leaf(opt_state)])

        return tree_init, tree_update, tree_get_params

    return tree_opt_maker


# Learning-rate schedules: functions of the step number.


def constant(step_size):
    def schedule(i):
        return step_size

    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)

    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    if staircase:

        def schedule(i):
            return step_size / (1 + decay_rate * jnp.floor(i / decay_steps))

    else:

        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)

    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries, values):
    boundaries = jnp.array(boundaries)
    values = jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[jnp.sum(i > boundaries)]

    return schedule


def make_schedule(scalar_or_schedule):
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# The optimizers, each for one array.


@optimizer
def sgd(step_size):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x

    return init, update, get_params


@optimizer
def momentum(step_size, mass):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        x = x - step_size(i) * velocity
        return x, velocity

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def nesterov(step_size, mass):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        x = x - step_size(i) * (mass * velocity + g)
        return x, velocity

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def adagrad(step_size, momentum=0.9):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq += jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        return x, g_sq, m

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        x = x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x, avg_sq_grad

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        x = x - mom
        return x, avg_sq_grad, mom

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        x = x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps)
        return x, m, v

    def get_params(state):
        return state[0]

    return init, update, get_params


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    def get_params(state):
        return state[0]

    return init, update, get_params


def l2_norm(tree):
    leaves = tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    norm = l2_norm(grad_tree)

    def normalize(g):
        return jnp.where(norm < max_norm, g, g * (max_norm / norm))

    return tree_map(normalize, grad_tree)
