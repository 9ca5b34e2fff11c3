# A dense layer on bfloat16 arrays: the MXU takes the bf16 operands in one pass whatever the
# precision, accumulates in float32, and every result that could leave bf16 is rounded back
# (`convert`, the vector unit's v.bf16) before it is stored; relu's max picks an operand, so it
# needs no rounding.
import jax
import jax.numpy as jnp

jax.config.update("jax_default_matmul_precision", "highest")

@jax.jit
def dense(x, w, b):
    return jax.nn.relu(x @ w + b)

x = (jnp.arange(8 * 16.0).reshape(8, 16) / 50.0).astype(jnp.bfloat16)
w = jnp.cos(jnp.arange(16 * 4.0).reshape(16, 4)).astype(jnp.bfloat16)
b = jnp.ones(4, dtype=jnp.bfloat16) / 3
print(dense(x, w, b))
