# Source: https://github.com/jax-ml/jax/blob/e70191bd9e67030fdce07ce5118f0380558dc53a/docs/jax-101/01-jax-basics.md (JAX 101 tutorial, removed from the docs in April 2024)
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); IPython %timeit magics dropped; the raising last statement of the 2 cells the page marks raises-exception dropped, the rest of those cells kept); matplotlib import and plotting calls dropped; synthetic data seeded (np.random.seed(0) added before the unseeded np.random.normal data); fewer steps (1000 -> 100 updates)

import jax
import jax.numpy as jnp

x = jnp.arange(10)
print(x)

print(x)

long_vector = jnp.arange(int(1e7))

def sum_of_squares(x):
  return jnp.sum(x**2)

sum_of_squares_dx = jax.grad(sum_of_squares)

x = jnp.asarray([1.0, 2.0, 3.0, 4.0])

print(sum_of_squares(x))

print(sum_of_squares_dx(x))

def sum_squared_error(x, y):
  return jnp.sum((x-y)**2)

sum_squared_error_dx = jax.grad(sum_squared_error)

y = jnp.asarray([1.1, 2.1, 3.1, 4.1])

print(sum_squared_error_dx(x, y))

print(jax.grad(sum_squared_error, argnums=(0, 1))(x, y))  # Find gradient wrt both x & y

print(jax.value_and_grad(sum_squared_error)(x, y))

def squared_error_with_aux(x, y):
  return sum_squared_error(x, y), x-y

print(jax.grad(squared_error_with_aux, has_aux=True)(x, y))

import numpy as np

x = np.array([1, 2, 3])

def in_place_modify(x):
  x[0] = 123
  return None

in_place_modify(x)
print(x)

def jax_in_place_modify(x):
  return x.at[0].set(123)

y = jnp.array([1, 2, 3])
print(jax_in_place_modify(y))

print(y)

import numpy as np

np.random.seed(0)
xs = np.random.normal(size=(100,))
noise = np.random.normal(scale=0.1, size=(100,))
ys = xs * 3 - 1 + noise

def model(theta, x):
  """Computes wx + b on a batch of input x."""
  w, b = theta
  return w * x + b

def loss_fn(theta, x, y):
  prediction = model(theta, x)
  return jnp.mean((prediction-y)**2)

def update(theta, x, y, lr=0.1):
  return theta - lr * jax.grad(loss_fn)(theta, x, y)

theta = jnp.array([1., 1.])

for _ in range(100):
  theta = update(theta, xs, ys)

w, b = theta
print(f"w: {w:<.2f}, b: {b:<.2f}")
