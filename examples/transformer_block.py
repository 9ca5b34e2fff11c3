# Transformer block
#
# A pre-norm transformer block on 2 sequences of 128 tokens of width 128: layer norm, two-head
# self-attention, a residual add, layer norm, a 4×-wide GELU MLP and another residual, in one jitted
# program. The Fused stage lists the kernels the compiler cut it into: matmuls are kOutput fusions,
# the layer-norm and softmax reductions kInput fusions, splitting and merging heads kTranspose
# fusions, the elementwise rest kLoop fusions, and every value passed from one kernel to the next
# goes through HBM. So at this size the block is memory-bound: its arithmetic_intensity is far below
# v5e's ridge (about 240 FLOP/byte; see the roofline) and the cycle breakdown blames most MXU cycles
# on weight_stall, waiting for data. The four 128×128 projections and the MLP fill the MXU; the
# per-head attention matmuls are only 64 deep or wide and account for all of mxu_unused_macs. flops
# − 2·mxu_macs is the vector unit's share.

import jax
import jax.numpy as jnp
import math

B, T, D, H = 2, 128, 128, 2


def uniform(shape, seed, scale):
    # Deterministic weights computed by a jitted init on the emulated TPU (jax.random works
    # too, but draws on the host, so it would add no program to look at).
    n = shape[0] * shape[1]
    return scale * jnp.sin(jnp.arange(n * 1.0).reshape(shape) * 0.7 + seed)


@jax.jit
def init():
    s = 1 / math.sqrt(D)
    params = {
        "wq": uniform((D, D), 1.0, s),
        "wk": uniform((D, D), 2.0, s),
        "wv": uniform((D, D), 3.0, s),
        "wo": uniform((D, D), 4.0, s),
        "w1": uniform((D, 4 * D), 5.0, s),
        "w2": uniform((4 * D, D), 6.0, s / 2),
        "ln1": jnp.ones(D),
        "ln2": jnp.ones(D),
    }
    x = uniform((B * T, D), 7.0, 1.0).reshape(B, T, D)
    return params, x


def layer_norm(x, gain):
    mean = x.mean(axis=-1).reshape(B, T, 1)
    var = ((x - mean) ** 2).mean(axis=-1).reshape(B, T, 1)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * gain


def heads(x):
    # (B, T, D) -> (B, H, T, D // H)
    return x.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)


def attention(x, p):
    q, k, v = heads(x @ p["wq"]), heads(x @ p["wk"]), heads(x @ p["wv"])
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D // H)
    out = jax.nn.softmax(scores, axis=-1) @ v
    return out.transpose(0, 2, 1, 3).reshape(B, T, D) @ p["wo"]


@jax.jit
def block(p, x):
    x = x + attention(layer_norm(x, p["ln1"]), p)
    return x + jax.nn.gelu(layer_norm(x, p["ln2"]) @ p["w1"]) @ p["w2"]


params, x = init()
y = block(params, x)
print(y.shape)
print(y[0, :2, :6])
