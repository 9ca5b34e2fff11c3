# jit vs eager
#
# The same function run twice: op by op (as JAX runs code outside jit) and jitted. Eagerly, every
# operation is its own program (tick "show op-by-op programs" to list them): each reads its inputs
# from HBM and writes its result back, and each pays a program's fixed costs (DMA latency, weight
# loading). Jitted, the whole function is one program (`layer`) in which the compiler fuses the
# bias, the GELU's elementwise operations and the residual add into the matmul's epilogue (one
# kOutput fusion in the Fused stage), so the 256×512 intermediates never leave VMEM. Add up the
# op-by-op rows' hbm_bytes_read + hbm_bytes_written and cycles (each times its calls) and compare
# them with the `layer` row: the MXU's work (mxu_macs) is the same, the HBM traffic is more than ten
# times larger and the time several times longer.

import jax
import jax.numpy as jnp


def layer(x, w, b):
    h = x @ w + b
    # GELU (tanh approximation), written out so each step is an operation of its own.
    return h + 0.5 * h * (1.0 + jnp.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))


@jax.jit
def init():
    x = jnp.sin(jnp.arange(256 * 256.0).reshape(256, 256) * 0.7)
    w = jnp.cos(jnp.arange(256 * 512.0).reshape(256, 512) * 0.3) * 0.06
    return x, w, jnp.zeros(512)


x, w, b = init()
eager = layer(x, w, b)
jitted = jax.jit(layer)(x, w, b)
print("op by op:", eager[0, :4])
print("jitted:  ", jitted[0, :4])
