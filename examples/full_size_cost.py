# GPT-2 and Llama layers at full size, timed without running them
#
# What would one layer of GPT-2 small, or of a 7B-parameter Llama, cost on a v5e? jax.jit(f)
# .lower(...) traces it on jax.ShapeDtypeStructs, the types of arrays that are never made (400 MiB
# of bf16 weights for the Llama layer), and .compile() compiles it for the emulated chip and times
# it without computing a single value: look at the block programs' counters (no calls, yet cycles
# and seconds), their rooflines and MXU utilization. cost_analysis() is XLA's count: 2·M·N·K flops
# per matmul. Then the Llama MLP at growing batch sizes: its arithmetic intensity (flops per byte;
# bf16 is two bytes in HBM, as on the chip) grows with the batch until the weights' bytes stop
# mattering, and the ffn programs' roofline moves from HBM-bound to MXU-bound.

import math

import jax
import jax.numpy as jnp

bf16 = jnp.bfloat16
S = jax.ShapeDtypeStruct


def rms_norm(x, gain):
    x32 = x.astype(jnp.float32)
    scale = jax.lax.rsqrt((x32 * x32).mean(axis=-1, keepdims=True) + 1e-6)
    return (x32 * scale).astype(bf16) * gain


def layer_norm(x, gain):
    x32 = x.astype(jnp.float32)
    centred = x32 - x32.mean(axis=-1, keepdims=True)
    scale = jax.lax.rsqrt((centred * centred).mean(axis=-1, keepdims=True) + 1e-5)
    return (centred * scale).astype(bf16) * gain


def ffn(h, w1, w3, w2):
    return (jax.nn.silu(h @ w1) * (h @ w3)) @ w2


def gelu_ffn(h, w1, w2):
    return jax.nn.gelu(h @ w1) @ w2


def attention(h, p, heads):
    t, d = h.shape
    split = lambda w: (h @ w).reshape(t, heads, d // heads).transpose(1, 0, 2)
    q, k, v = split(p["wq"]), split(p["wk"]), split(p["wv"])
    scores = jnp.einsum("htd,hsd->hts", q, k) / math.sqrt(d // heads)
    causal = jnp.tril(jnp.ones((t, t), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9).astype(jnp.float32), axis=-1).astype(bf16)
    return jnp.einsum("hts,hsd->htd", weights, v).transpose(1, 0, 2).reshape(t, d) @ p["wo"]


def weights(d, ffn_shapes):
    square = S((d, d), bf16)
    return {"wq": square, "wk": square, "wv": square, "wo": square, "ln1": S((d,), bf16), "ln2": S((d,), bf16),
            **{name: S(shape, bf16) for name, shape in ffn_shapes.items()}}


# GPT-2 small: d_model 768, 12 heads, 1024 tokens, a GELU MLP of 3072, LayerNorm.
def gpt2_block(p, x):
    x = x + attention(layer_norm(x, p["ln1"]), p, 12)
    return x + gelu_ffn(layer_norm(x, p["ln2"]), p["w1"], p["w2"])


gpt2 = jax.jit(gpt2_block).lower(weights(768, {"w1": (768, 3072), "w2": (3072, 768)}), S((1024, 768), bf16))
cost = gpt2.compile().cost_analysis()
print(f"gpt2_block: {cost['flops'] / 1e9:.1f} GFLOP")

# Llama 2 7B: d_model 4096, 32 heads, 2048 tokens, a SwiGLU MLP of 11008, RMSNorm.
D, HEADS, T, FFN = 4096, 32, 2048, 11008


def block(p, x):
    x = x + attention(rms_norm(x, p["ln1"]), p, HEADS)
    return x + ffn(rms_norm(x, p["ln2"]), p["w1"], p["w3"], p["w2"])


params = weights(D, {"w1": (D, FFN), "w3": (D, FFN), "w2": (FFN, D)})
compiled = jax.jit(block).lower(params, S((T, D), bf16)).compile()
cost = compiled.cost_analysis()
memory = compiled.memory_analysis()
print(f"block: {cost['flops'] / 1e12:.3f} TFLOP, {memory.argument_size_in_bytes / 2**20:.0f} MiB of arguments")

for batch in [1, 16, 128, 1024]:
    mlp = jax.jit(ffn).lower(S((batch, D), bf16), params["w1"], params["w3"], params["w2"]).compile()
    c = mlp.cost_analysis()
    print(f"ffn at batch {batch:4}: {c['flops'] / c['bytes accessed']:6.1f} flops per byte")
