# Padding to 128
#
# Three square matmuls, n = 127, 128 and 129, in that order in the program list (matmul, matmul#2,
# matmul#3). The MXU is a 128×128 array holding one 128×128 tile of the weights at a time, and VMEM
# tiles are padded to 128 lanes. n = 128 fills it exactly: mxu_unused_macs is 0. n = 127 leaves one
# row and one column of the array idle: a little waste. n = 129 needs a 2×2 grid of weight tiles,
# four instead of one, and three of them are nearly all padding (see the 128x1, 1x128 and 1x1 tiles
# of mxu.weights in the assembly): every row streams through the array four times, so
# mxu_busy_cycles is about four times 128's, and mxu_unused_macs is about three times mxu_macs.
# Shapes that are multiples of 128 are the TPU's friends.

import jax
import jax.numpy as jnp


@jax.jit
def matmul(x, w):
    return x @ w


for n in [127, 128, 129]:
    x = jnp.ones((n, n))
    w = jnp.full((n, n), 0.5)
    y = matmul(x, w)
    print(n, y.shape, y[0, 0])
