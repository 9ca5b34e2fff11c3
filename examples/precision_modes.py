# Precision modes
#
# The MXU multiplies bfloat16 numbers (8 significant bits) and adds in float32. A float32 matmul at
# DEFAULT precision rounds both operands to bfloat16 and makes one pass through the MXU; HIGH splits
# each operand into a bf16 high part and a bf16 remainder and makes 3 passes (bf16_3x); HIGHEST
# splits into three parts and makes 6 passes, as accurate as float32. This script runs the same
# jitted matmul under each setting of jax_default_matmul_precision (overriding the page's Precision
# menu): three `matmul` programs, in that order. Their mxu_macs and mxu_busy_cycles go 1×, 3×, 6×
# while flops (useful work) stays the same; each mxu.matmul in the assembly names its pass (part=hi,
# mid or lo). cycles grow far less than 6×: at this size the program waits for HBM more than for the
# MXU. The printed error against HIGHEST shrinks more than a hundredfold from DEFAULT to HIGH.

import jax
import jax.numpy as jnp


@jax.jit
def matmul(x, w):
    return x @ w


@jax.jit
def max_error(a, b):
    return jnp.abs(a - b).max()


@jax.jit
def init():
    x = jnp.sin(jnp.arange(128 * 256.0).reshape(128, 256) * 0.7)
    w = jnp.cos(jnp.arange(256 * 256.0).reshape(256, 256) * 0.3)
    return x, w


x, w = init()
results = {}
for precision in ["default", "high", "highest"]:
    jax.config.update("jax_default_matmul_precision", precision)
    results[precision] = matmul(x, w)

for precision in ["default", "high"]:
    error = float(max_error(results[precision], results["highest"]))
    print(f"{precision:>7}: max error vs highest {error:.2e}")
