"""numpy.cov and numpy.corrcoef on the host (float64), and jax.numpy's beside them. Values are
rounded before printing where the order of a matrix product's additions (BLAS's, XLA's) shows
in the last digits. jax.numpy's run at `highest` precision: at DEFAULT a TPU's products round
their operands to bfloat16."""
import numpy as np
import jax.numpy as jnp
rng = np.random.default_rng(3)
a = rng.standard_normal((5, 3)).astype(np.float32)
show = lambda c: print(np.round(c, 6), c.dtype, c.shape)
show(np.cov(a, rowvar=False))
show(np.cov(a))
show(np.cov(a[:, 0], a[:, 1]))
show(np.cov(a, bias=True, rowvar=False))
show(np.cov(a, rowvar=False, fweights=[1, 2, 1, 3, 1]))
show(np.cov(a, rowvar=False, aweights=[0.5, 2.0, 1.0, 3.0, 1.0], ddof=2))
show(np.cov([1.0, 2.0, 5.0]))
show(np.cov(np.array([1, 2, 5])))
c = np.cov(a, rowvar=False, dtype=np.float32)
print(np.round(c, 4), c.dtype)
show(np.corrcoef(a, rowvar=False))
show(np.corrcoef(a[:, 0], a[:, 2]))
print(np.cov([[1.0, 2.0], [2.0, 4.0]]))
import jax
jax.config.update("jax_default_matmul_precision", "highest")  # as NumPy's float32 products
x = jnp.asarray(a)
jshow = lambda c: print(jnp.round(c, 5), c.dtype, c.shape)
jshow(jnp.cov(x, rowvar=False))
jshow(jnp.cov(x))
jshow(jnp.cov(x[:, 0], x[:, 1]))
jshow(jnp.cov(x, rowvar=False, fweights=jnp.array([1, 2, 1, 3, 1])))
jshow(jnp.cov(x, rowvar=False, aweights=jnp.array([0.5, 2.0, 1.0, 3.0, 1.0]), ddof=2))
jshow(jnp.corrcoef(x, rowvar=False))
jshow(jnp.corrcoef(x[:, 0], x[:, 2]))
jshow(jnp.cov(jnp.array([[1, 2, 4]]), rowvar=False))
print(jnp.cov(jnp.array([1, 2, 5])))
for bad in [lambda: np.cov(np.zeros((2, 2, 2))), lambda: np.cov(a, fweights=[1.5, 1, 1]),
            lambda: np.cov(a, rowvar=False, aweights=[1, -1, 1, 1, 1]),
            lambda: jnp.cov(x, rowvar=False, fweights=jnp.array([1.0, 2, 1, 3, 1]))]:
    try:
        bad()
    except (ValueError, TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
