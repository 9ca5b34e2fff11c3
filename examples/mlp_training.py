# MLP training loop (SGD)
#
# Five steps of plain SGD on a small regression problem. jax.value_and_grad and the update both run
# inside one jit, so a single `train_step` program does the forward pass, the backward pass and the
# update; it is compiled once and run five times (its calls column says 5, and its counters are per
# call). In its Jaxpr the backward pass is more dot_generals on transposed operands: one per weight
# gradient and one to carry the gradient back into the hidden layer (none for x, which is not
# differentiated), so mxu_macs is about twice the forward pass's. The 1-wide output layer uses one
# of the MXU's 128 columns (and, going back, one of its 128 rows), which is why mxu_unused_macs
# exceeds mxu_macs. The printed loss goes down.

import jax
import jax.numpy as jnp


def uniform(shape, seed, scale):
    # Deterministic weights computed by a jitted init on the emulated TPU (jax.random works
    # too, but draws on the host, so it would add no program to look at).
    n = shape[0] * shape[1]
    return scale * jnp.sin(jnp.arange(n * 1.0).reshape(shape) * 0.7 + seed)


@jax.jit
def init():
    params = {
        "w1": uniform((64, 128), 1.0, 0.2),
        "b1": jnp.zeros(128),
        "w2": uniform((128, 1), 2.0, 0.1),
        "b2": jnp.zeros(1),
    }
    x = uniform((256, 64), 3.0, 1.0)
    y = jnp.tanh(x.sum(axis=1)).reshape(256, 1)
    return params, x, y


def loss_fn(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    pred = h @ params["w2"] + params["b2"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new_params = {k: params[k] - 0.1 * grads[k] for k in params}
    return new_params, loss


params, x, y = init()
for step in range(5):
    params, loss = train_step(params, x, y)
    print(f"step {step}: loss {loss:.4f}")
