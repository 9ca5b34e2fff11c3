// The script a fresh page opens with: one jitted function, a matmul with an elementwise
// epilogue, which exercises the whole pipeline (parse, trace, compile, emulate, print).
export const SKELETON_SCRIPT = `import jax
import jax.numpy as jnp

@jax.jit
def f(x, w):
    return jnp.tanh(x @ w) * 2.0 + 1.0

x = jnp.arange(12.0).reshape(3, 4) / 10.0
w = jnp.ones((4, 5)) * 0.5
print(f(x, w))
`;
