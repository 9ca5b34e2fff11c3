# A Llama-size layer, timed without running it
#
# What would one layer of a 7B-parameter model cost on a v5e? jax.jit(f).lower(...) traces it on
# jax.ShapeDtypeStructs, the types of arrays that are never made (400 MiB of bf16 weights here),
# and .compile() compiles it for the emulated chip and times it without computing a single value:
# look at the block program's counters (no calls, yet cycles and seconds), its roofline and its
# MXU utilization. cost_analysis() is XLA's count: 2·M·N·K flops per matmul, the sum of the
# matmuls' 0.9 TFLOP. Then the same MLP at growing batch sizes: its arithmetic intensity (flops
# per byte) grows with the batch until the weights' bytes stop mattering, and the ffn programs'
# roofline moves from HBM-bound to MXU-bound. (bf16 still takes four bytes a value in the
# emulated HBM, so memory-bound times are twice the hardware's for now.)

import math

import jax
import jax.numpy as jnp

D, HEADS, T, FFN = 4096, 32, 2048, 11008
bf16 = jnp.bfloat16
S = jax.ShapeDtypeStruct


def rms_norm(x, gain):
    x32 = x.astype(jnp.float32)
    scale = jax.lax.rsqrt((x32 * x32).mean(axis=-1, keepdims=True) + 1e-6)
    return (x32 * scale).astype(bf16) * gain


def ffn(h, w1, w3, w2):
    return (jax.nn.silu(h @ w1) * (h @ w3)) @ w2


def block(p, x):
    h = rms_norm(x, p["ln1"])
    heads = lambda w: (h @ w).reshape(T, HEADS, D // HEADS).transpose(1, 0, 2)
    q, k, v = heads(p["wq"]), heads(p["wk"]), heads(p["wv"])
    scores = jnp.einsum("htd,hsd->hts", q, k) / math.sqrt(D // HEADS)
    causal = jnp.tril(jnp.ones((T, T), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9).astype(jnp.float32), axis=-1).astype(bf16)
    attended = jnp.einsum("hts,hsd->htd", weights, v).transpose(1, 0, 2).reshape(T, D)
    x = x + attended @ p["wo"]
    return x + ffn(rms_norm(x, p["ln2"]), p["w1"], p["w3"], p["w2"])


square = S((D, D), bf16)
params = {
    "wq": square, "wk": square, "wv": square, "wo": square,
    "w1": S((D, FFN), bf16), "w3": S((D, FFN), bf16), "w2": S((FFN, D), bf16),
    "ln1": S((D,), bf16), "ln2": S((D,), bf16),
}
compiled = jax.jit(block).lower(params, S((T, D), bf16)).compile()
cost = compiled.cost_analysis()
memory = compiled.memory_analysis()
print(f"block: {cost['flops'] / 1e12:.3f} TFLOP, {memory.argument_size_in_bytes / 2**20:.0f} MiB of arguments")

for batch in [1, 16, 128, 1024]:
    mlp = jax.jit(ffn).lower(S((batch, D), bf16), params["w1"], params["w3"], params["w2"]).compile()
    c = mlp.cost_analysis()
    print(f"ffn at batch {batch:4}: {c['flops'] / c['bytes accessed']:6.1f} flops per byte")
