# Batch size vs MXU utilization
#
# One 256×256 layer applied to batches of 8, 32, 128 and 512 rows: four `layer` programs, in that
# order. The MXU is weight-stationary: it loads a 128×128 tile of the weights (128 cycles to shift
# it in, after it has come from HBM) and then streams one activation row per cycle through it. With
# 8 rows a tile is used for 8 cycles after all the work of fetching it, so mxu_utilization is tiny
# and the cycle breakdown is mostly weight_stall (waiting for weights from HBM) and non_matrix;
# every 4× more rows reuse the same 4 weight tiles 4× more, the cycles grow much more slowly than
# the work, and mxu_utilization climbs. This is why TPUs like big batches, and why small-batch
# inference is memory-bound (arithmetic_intensity ≈ batch/2 FLOP per byte while the batch is small
# next to 256).

import jax
import jax.numpy as jnp


@jax.jit
def layer(x, w):
    return jax.nn.relu(x @ w)


@jax.jit
def init():
    w = jnp.sin(jnp.arange(256 * 256.0).reshape(256, 256) * 0.7) * 0.05
    x = jnp.cos(jnp.arange(512 * 256.0).reshape(512, 256) * 0.3)
    return x, w


x, w = init()
for batch in [8, 32, 128, 512]:
    y = layer(x[:batch], w)
    print(batch, y.shape, y[0, :3])
