# Self-attention
#
# One attention head over a batch of 4 sequences of 128 tokens with 64 features: softmax(q @ kᵀ /
# √d) @ v with batched matmuls. In the Jaxpr, `q @ k.transpose(0, 2, 1)` is a dot_general with a
# batch dimension, and softmax over the last axis is a max, a subtraction, an exp, a sum and a
# division. The fused graph shows what that costs: the transpose of k is a kernel of its own, and
# the softmax is three kernels around the two matmuls, so the 4×128×128 score matrices go to HBM and
# back four times (raw, scaled, exponentiated, normalised): hbm_bytes_written is ten times the
# output's size. Fusing all of it into one kernel is what FlashAttention does. On the MXU, q @ kᵀ is
# only 64 deep (half the array's rows) and weights @ v only 64 wide (half its columns), so
# mxu_unused_macs equals mxu_macs.

import jax
import jax.numpy as jnp
import math


def uniform(shape, seed, scale):
    # Deterministic weights computed by a jitted init on the emulated TPU (jax.random works
    # too, but draws on the host, so it would add no program to look at).
    n = shape[0] * shape[1] * shape[2]
    return scale * jnp.sin(jnp.arange(n * 1.0).reshape(shape) * 0.7 + seed)


@jax.jit
def attention(q, k, v):
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores, axis=-1)
    return weights @ v


@jax.jit
def init():
    shape = (4, 128, 64)
    return uniform(shape, 1.0, 1.0), uniform(shape, 2.0, 1.0), uniform(shape, 3.0, 1.0)


q, k, v = init()
out = attention(q, k, v)
print(out.shape)
print(out[0, :2, :6])
