# Source: https://github.com/Dhia-naouali/learning-jax/blob/5a2fecb984670c003e4ff91a6795b65cea002017/micro-projects/03_logistic_regression/main.py (Dhia Naouali, learning JAX micro-projects: a linear model with NamedTuple parameters fitted by SGD with jax.tree.map)
# License: none stated (see source)
# Changed: matplotlib import and plotting calls dropped; prints of the fitted parameters and of the final loss added

import jax
import jax.numpy as jnp
from typing import NamedTuple

class Params(NamedTuple):
    weight: jnp.ndarray
    bias: jnp.ndarray
    
def init(rng):
    w_key, b_key = jax.random.split(rng)
    w = jax.random.normal(w_key, ())
    b = jax.random.normal(b_key, ())
    return Params(w, b)

def loss(params, x, y):
    y_hat = x * params.weight + params.bias
    return jnp.mean((y - y_hat) ** 2)

learning_rate = 5e-2

@jax.jit
def update(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(
        lambda g, p: p - learning_rate*g,
        grads,
        params
    )


w_ = 1.6
b_ = .8
n = 128

key = jax.random.key(12)
key, params_key, x_key, y_key = jax.random.split(key, 4)

xs = jax.random.normal(x_key, (n, 1))
noise = jax.random.normal(y_key, (n, 1))*0.4
ys = xs * w_ + b_ + noise

params = init(params_key)

for _ in range(32):
    params = update(params, xs, ys)

y_pred = xs * params.weight + params.bias
print(params)
print("loss:", loss(params, xs, ys))
