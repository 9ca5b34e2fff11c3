# bfloat16 vs float32
#
# bfloat16 keeps float32's 8-bit exponent but only 8 significant bits (float32 has 24), so it holds
# about 3 decimal digits: the first lines printed show x before and after rounding. The MXU
# multiplies in bfloat16 and accumulates in float32, which is why, at DEFAULT precision, a float32
# matmul gives bit for bit the result of a float32-exact (HIGHEST) matmul of the operands rounded to
# bfloat16: the error printed as 0. The float32-exact result of the unrounded operands costs six
# bf16 passes instead of one: compare the first `matmul` program (HIGHEST, called twice) with the
# second (DEFAULT) in mxu_macs and mxu_busy_cycles. Arrays stored in bfloat16 (the third
# `matmul` program) take one pass whatever the precision: they are their own bf16 part; the
# result, accumulated in float32, is rounded to bfloat16. (In the emulator's memories a bfloat16
# still fills a 32-bit word, so the hbm_bytes counters do not halve yet.)

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
    w = jnp.cos(jnp.arange(256 * 128.0).reshape(256, 128) * 0.3)
    return x, w


x, w = init()
x_bf16 = x.astype(jnp.bfloat16).astype(jnp.float32)
w_bf16 = w.astype(jnp.bfloat16).astype(jnp.float32)
print("float32: ", x[0, 1:5])
print("bfloat16:", x_bf16[0, 1:5])

jax.config.update("jax_default_matmul_precision", "highest")
exact = matmul(x, w)
exact_of_rounded = matmul(x_bf16, w_bf16)
jax.config.update("jax_default_matmul_precision", "default")
mxu_default = matmul(x, w)

same = float(max_error(mxu_default, exact_of_rounded))
print("DEFAULT vs exact matmul of bf16-rounded operands:", same)
print(f"DEFAULT vs exact float32 matmul: {float(max_error(mxu_default, exact)):.2e}")

# bfloat16 arrays: one MXU pass even at HIGHEST; the float32 sums rounded to bfloat16 are
# DEFAULT's result rounded to bfloat16.
jax.config.update("jax_default_matmul_precision", "highest")
in_bf16 = matmul(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16))
jax.config.update("jax_default_matmul_precision", "default")
rounded_default = mxu_default.astype(jnp.bfloat16).astype(jnp.float32)
print("bfloat16 arrays:", in_bf16.dtype, in_bf16[0, :4])
print("bf16 matmul vs DEFAULT rounded to bf16:", float(max_error(in_bf16.astype(jnp.float32), rounded_default)))
