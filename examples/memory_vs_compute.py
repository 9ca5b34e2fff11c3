# Memory-bound vs compute-bound
#
# Two programs on the roofline. `matvec` multiplies 8 vectors by a 2048×2048 matrix: each weight
# comes from HBM to be used 8 times, about 4 FLOPs per byte moved (arithmetic_intensity), so the
# program takes as long as HBM needs to deliver 16 MiB of weights: its cycles come close to
# roofline_cycles (roofline_fraction near 1) while the MXUs idle (mxu_utilization about 1%).
# `matmul` multiplies two 512×512 matrices: each value fetched is used 512 times, about 85 FLOPs per
# byte, twenty times the work per byte, and its MXUs are many times busier. On v5e the ridge (where
# the memory roof meets the compute roof) is about 240 FLOPs per byte with float32 operands, so even
# this matmul is still under the memory roof. Choose TPU v2 in the Machine menu (one MXU per core,
# ridge about 65) and run again: the matmul's roofline_cycles become its FLOPs divided by the MXU's
# peak, it is compute-bound, and the matrix-vector product is still memory-bound, as it is on every
# machine.

import jax
import jax.numpy as jnp


@jax.jit
def matvec(x, w):
    return x @ w


@jax.jit
def matmul(a, b):
    return a @ b


@jax.jit
def init():
    x = jnp.cos(jnp.arange(8 * 2048.0).reshape(8, 2048) * 0.3)
    a = jnp.cos(jnp.arange(512 * 512.0).reshape(512, 512) * 0.9) * 0.05
    return x, a


x, a = init()
w = jnp.full((2048, 2048), 0.001)  # made on the host: no program, and quick on every backend
print(matvec(x, w)[0, :4])
print(matmul(a, a)[0, :4])
