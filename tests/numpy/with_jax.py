# NumPy next to JAX: converting arrays both ways, NumPy functions on JAX arrays, jit with NumPy inputs, a small regression fit, and NumPy on tracers.
import numpy as np
import jax
import jax.numpy as jnp

x_np = np.linspace(0.0, 1.0, 5)
x = jnp.asarray(x_np)
print(x_np.dtype, x.dtype)
print(x)
ints = jnp.asarray(np.arange(4))
print(ints.dtype, ints)
print(jnp.array(np.array([1.5, 2.5])).dtype, jnp.asarray(np.array([True, False])).dtype)

back = np.asarray(x)
print(type(back).__name__, back.dtype)
print(repr(back))
print(repr(np.array(jnp.arange(3))))
print(repr(np.asarray(jnp.ones((2, 2)))))
s = np.sqrt(x)
print(type(s).__name__, repr(s))
print(type(np.sum(x)).__name__, repr(np.mean(x)))
print(repr(x_np + np.asarray(x)))
print(type(x_np * x).__name__, (x_np * x).dtype)


@jax.jit
def affine(w, b, inputs):
    return inputs @ w + b


w0 = np.array([0.5, -1.0])
inputs = np.array([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
out = affine(w0, 0.25, inputs)
print(type(out).__name__, out.dtype, out)
print(repr(np.asarray(out)))

rng = np.random.RandomState(0)
X = rng.randn(32, 3).astype(np.float32)
w_true = np.array([1.5, -2.0, 0.5], dtype=np.float32)
y = X @ w_true + np.float32(0.3)
print(X.shape, y.shape, y.dtype)
print(repr(np.round(y[:4], 4)))


def loss(params, X, y):
    w, b = params
    pred = jnp.sum(X * w, axis=1) + b
    return jnp.mean((pred - y) ** 2)


grad_fn = jax.jit(jax.grad(loss))
params = (jnp.zeros(3), jnp.float32(0.0))
print(float(loss(params, X, y)) > 1.0)
for step in range(150):
    gw, gb = grad_fn(params, X, y)
    params = (params[0] - 0.1 * gw, params[1] - 0.1 * gb)
    if step % 10 == 0 and step <= 30:
        print(step, round(float(loss(params, X, y)), 4))
w_fit = np.asarray(params[0])
b_fit = float(params[1])
print(repr(np.round(w_fit, 3)), round(b_fit, 3))
np.testing.assert_allclose(w_fit, w_true, rtol=1e-5)
print("fit ok")
print(np.allclose(w_fit, w_true, atol=1e-3), np.allclose(b_fit, 0.3, atol=1e-3))
print(np.allclose(np.asarray(params[0]), np.array([0.0, 0.0, 0.0])))


@jax.jit
def bad(v):
    return np.sin(v) * 2


try:
    bad(jnp.arange(3.0))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])


@jax.jit
def also_bad(v):
    return float(v.sum())


try:
    also_bad(jnp.ones(2))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

# `str % x` formats x, whatever x's own `__rmod__` would do: a 0-d JAX array, a NumPy one.
print("%f | %.3e | %d | %s" % (jnp.average(jnp.abs(jnp.array([1.0, -2.0]))), np.float32(2.5), jnp.int32(7), jnp.array(1.5)))
print("mean %.4f" % jnp.mean(jnp.arange(4.0)), "max %s" % np.max(np.arange(3)))
