# MLP forward pass
#
# A two-layer perceptron on a batch of 128, jitted into one program. In the Fused stage each layer
# is one kOutput fusion: its bias add (and the first layer's relu) is applied to the matmul's result
# while it is still in VMEM, so the only intermediate that goes through HBM is the 128×512 hidden
# layer, written once and read once (compare hbm_bytes_read and hbm_bytes_written with the sizes of
# x, the weights and the output). The second layer has only 10 outputs, but the MXU is 128 columns
# wide: its padding is all of mxu_unused_macs (128 rows × 512 deep × 118 idle columns), and on the
# timeline its MXUs stream half as long as the first layer's for a twenty-fifth of the work.

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
        "w1": uniform((256, 512), 1.0, 0.1),
        "b1": jnp.zeros(512),
        "w2": uniform((512, 10), 2.0, 0.08),
        "b2": jnp.zeros(10),
    }
    return params, uniform((128, 256), 3.0, 1.0)


@jax.jit
def mlp(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


params, x = init()
logits = mlp(params, x)
print(logits.shape)
print(logits[0])
