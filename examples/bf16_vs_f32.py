# bfloat16 vs float32
#
# bfloat16 keeps float32's 8-bit exponent but only 8 significant bits (float32 has 24), so it holds
# about 3 decimal digits: the first lines printed show x before and after rounding. The MXU
# multiplies in bfloat16 and accumulates in float32, which is why, at DEFAULT precision, a float32
# matmul gives bit for bit the result of a float32-exact (HIGHEST) matmul of the operands rounded to
# bfloat16: the error printed as 0. The float32-exact result of the unrounded operands costs six
# bf16 passes instead of one: compare the first `matmul` program (HIGHEST, called twice) with the
# second (DEFAULT) in mxu_macs and mxu_busy_cycles. (Storing arrays in bfloat16 would also halve
# every hbm_bytes counter, but the compiler does not take bfloat16 arrays yet: the conversions here
# run on the host, not on the emulated TPU.)

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
