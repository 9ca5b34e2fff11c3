# The gradient of a two-layer MLP's loss: the backward matmuls arrive as transposed
# dot_generals, which the HLO pass canonicalises into transposes on the cross-lane unit.
import jax
import jax.numpy as jnp

def loss(w1, w2, x):
    h = jnp.tanh(x @ w1)
    return jnp.mean((h @ w2) ** 2)

grad = jax.jit(jax.grad(loss, argnums=(0, 1)))
x = jnp.ones((8, 16)) * 0.1
w1 = jnp.ones((16, 32)) * 0.05
w2 = jnp.ones((32, 4)) * 0.02
g1, g2 = grad(w1, w2, x)
print(g1.sum(), g2.sum())
