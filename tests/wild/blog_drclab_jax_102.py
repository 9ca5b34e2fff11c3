# Source: https://github.com/drclab/drclab.github.io/blob/d46b29f8c30e2ed0615f08659a74f3f5e8166081/content/posts/jax-102.md (blog post "JAX 102: Control Flow with lax", https://drclab.github.io/posts/jax-102, 2025-10-27)
# License: none stated (see source)
# Changed: the post's Python code blocks concatenated in order into a script

import jax
import jax.numpy as jnp
from jax import lax, jit, grad

def dot_fori_loop(a, b):
    """Compute a dot product with lax.fori_loop to expose the mechanics."""
    def body_fun(i, carry):
        acc = carry + a[i] * b[i]
        return acc

    return lax.fori_loop(0, a.shape[0], body_fun, 0.0)

a = jnp.array([1., 2., 3., 4.])
b = jnp.array([-1., 0.5, 0.25, 2.])
print("Python dot :", jnp.dot(a, b))
print("lax.fori_loop dot:", dot_fori_loop(a, b))

dot_grad = grad(lambda x: dot_fori_loop(x, b))
print("Gradient wrt a:", dot_grad(a))

def exponential_moving_average(x, alpha=0.1):
    """Return EMA values for a 1D signal using lax.scan."""
    def body(carry, x_t):
        prev = carry
        ema = (1 - alpha) * prev + alpha * x_t
        return ema, ema  # new carry, value to collect

    init = x[0]
    ema_values, _ = lax.scan(body, init, x[1:])
    return jnp.concatenate([jnp.array([init]), ema_values])

signal = jnp.linspace(0., 1., 6)
print("Signal:", signal)
print("EMA   :", exponential_moving_average(signal))

def newton_sqrt(x, max_iters=25, tol=1e-6):
    """Use lax.while_loop to run Newton iterations until convergence."""
    def cond_fn(state):
        iter_idx, y, err = state
        return jnp.logical_and(iter_idx < max_iters, err > tol)

    def body_fn(state):
        iter_idx, y, _ = state
        y_next = 0.5 * (y + x / y)
        err = jnp.abs(y_next**2 - x)
        return (iter_idx + 1, y_next, err)

    init = (0, x, jnp.abs(x - x))
    _, estimate, _ = lax.while_loop(cond_fn, body_fn, init)
    return estimate

value = 7.0
print("sqrt via lax.while_loop:", newton_sqrt(value))
print("jax.numpy.sqrt        :", jnp.sqrt(value))

def safe_log(x):
    """Return log(x) with a fallback when x <= 0, fully JIT-compatible."""
    return lax.cond(
        x > 0,
        x,
        lambda v: jnp.log(v),
        x,
        lambda v: -jnp.inf,
    )

vals = jnp.array([2.0, 1.0, 1e-3, 0.0, -4.0])
print("safe_log:", jax.vmap(safe_log)(vals))

def rnn_step(carry, x_t, params):
    h_prev = carry
    w_hh, w_xh = params
    h = jnp.tanh(h_prev @ w_hh + x_t @ w_xh)
    return h, h

def run_rnn(inputs, params):
    h0 = jnp.zeros((params[0].shape[0],))
    final_h, outputs = lax.scan(lambda c, x: rnn_step(c, x, params), h0, inputs)
    return final_h, outputs

def batched_run_rnn(batch_inputs, params):
    return jax.vmap(lambda seq: run_rnn(seq, params))(batch_inputs)

jitted_run = jit(batched_run_rnn)

key = jax.random.PRNGKey(0)
params = (
    jax.random.normal(key, (8, 8)),
    jax.random.normal(key, (4, 8)),
)
batch = jax.random.normal(key, (3, 16, 4))
final_states, activations = jitted_run(batch, params)
print("final_states shape:", final_states.shape)
print("activations shape :", activations.shape)

loss = lambda p: jitted_run(batch, p)[0].sum()
print("dLoss/dw_hh shape:", grad(loss)(params)[0].shape)
