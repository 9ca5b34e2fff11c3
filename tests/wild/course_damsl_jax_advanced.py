# Source: https://github.com/arampatzis-teaching/damsl-281-2025/blob/c71f3c269bc7c99ef75b7aeeb85f9e78db63e0aa/lecture-notes/code/notebooks/04-flax/03-jax-advanced.ipynb (G. Arampatzis, DAMSL 281 lecture notes, 2025)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order)

import jax
import jax.numpy as jnp

def f(x):
    return x**2 + 3*x

# jax.grad takes a function and returns a NEW function
dfdx = jax.grad(f)
ddfddx = jax.grad(dfdx) # Second derivative!

print(f"f(2.0):   {f(2.0)}")      # 10.0
print(f"f'(2.0):  {dfdx(2.0)}")   # 2*2 + 3 = 7.0
print(f"f''(2.0): {ddfddx(2.0)}") # 2.0

# Returns tuple: (value, gradient)
val, grad = jax.value_and_grad(f)(2.0)
print(f"Loss: {val}, Grad: {grad}")

def mechanics(x):
    return x**2 + 1.0

# If we have a batch of particles, standard Python loops are slow.
batch = jnp.arange(5.0)

# Imagine this is a Neural Network's parameters
params = {
    'layer1': {'w': jnp.array([1, 2]), 'b': jnp.array([0.1])},
    'layer2': {'w': jnp.array([3, 4]), 'b': jnp.array([0.2])}
}

# We want to double every weight. We can't do params * 2.
# We must use tree_map.
doubled_params = jax.tree_util.tree_map(lambda x: x * 2, params)

print(doubled_params['layer1']['w']) # [2, 4]
