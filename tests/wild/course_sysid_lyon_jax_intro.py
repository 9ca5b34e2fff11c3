# Source: https://github.com/forgi86/dl-sysid-lyon2026/blob/73c4f3cef1484aeba6d1642b91ed90cd98ee11e6/code/solutions/01_jax_intro_solutions.ipynb (Marco Forgione, deep learning for system identification course, Lyon 2026)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); matplotlib import and plotting calls dropped; fewer steps (both 200-step gradient descent loops -> 50)
# Ignore lines matching:  at 0x[0-9a-f]+

import jax
import jax.numpy as jnp
import jax.random as jr

# Generate random keys for reproducibility
key = jr.key(42)
key_e, key_p = jr.split(key, 2)

a = jnp.ones((2,))
b = jnp.array([1.0, 2.0])
print(a + b)

a = jnp.ones((2,))
print(a.shape)

print(jnp.ones((2, 1))) # a column

print(jnp.ones((2, 1)).shape)

print(jnp.ones((1, 2))) # a row

print(jnp.ones((1, 2)).shape)

def f(p, x):
    y = p[0] * x  + p[1]
    return y

p_o = jnp.array([1.0, 2.0])
x = jnp.array(0.5)
y = f(p_o, x); print(y)

N = 100
x = jnp.linspace(-2, 2, N)
y = f(p_o, x) + jr.normal(key_e, (N,)) * 0.1

def loss_fn(p, y, x):
    ym = f(p, x) # works both with scalar (data point) or vector (data batch) x
    loss = jnp.mean((y - ym) ** 2)
    return loss

p_hat = jax.random.normal(key_p, shape=(2,)); print(p_hat)

print(loss_fn(p_hat, y, x))

print(loss_fn(p_o, y, x)) # loss close to 0.001 (std^2) at true parameters, as expected!

# this defines the gradient function
grad_fn = jax.grad(loss_fn, 0) # gradient wrt 1st agrument

print(grad_fn(p_hat, y, x))

print(grad_fn(p_o, y, x)) # gradient close to 0 at true parameters, as it should!

p_init = p_hat

lr = 1e-2 # learning rate
L = []  # to store loss values
for i in range(50):
    loss = loss_fn(p_hat, y, x)
    L.append(loss)
    g = grad_fn(p_hat, y, x)
    p_hat = p_hat - lr * g 

print(jax.grad(loss_fn, 0))

loss_grad_fn = jax.value_and_grad(loss_fn, 0)
print(loss_grad_fn(p_init, y, x))

p_init = p_hat

lr = 1e-2 # learning rate
L = []  # to store loss values
for i in range(50):
    loss, grad = loss_grad_fn(p_hat, y, x)
    L.append(loss)
    p_hat = p_hat - lr * grad

print(p_hat)

print(p_o)

print(grad_fn(p_init, y, x)) # do you trust JAX?

PHI = jnp.vstack([x, jnp.ones_like(x)]).T   
print(PHI.shape)

print(2 / N * PHI.T @ (PHI @ p_init - y))

eps = 1e-5

print((loss_fn(p_init + jnp.array([eps, 0.0]), y, x) - loss_fn(p_init, y, x)) / eps)

print((loss_fn(p_init + jnp.array([0, eps]), y, x) - loss_fn(p_init, y, x)) / eps)
