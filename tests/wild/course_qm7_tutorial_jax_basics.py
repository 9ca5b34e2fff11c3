# Source: https://github.com/MScherbela/jax_tutorial/blob/92b4eb791384de436dcdfc7772741a400b7b5bf5/02_jax_basics.ipynb (Michael Scherbela, JAX tutorial, 2022)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order); matplotlib import and plotting calls dropped
# Ignore lines matching:  sec$

import numpy as np
import jax.numpy as jnp
import jax
import time
np.random.seed(1234)

# Standard functions
x = jnp.linspace(-1.0, 1.0, 500)
y = jnp.sin(x) * x**2

# Linear algebra
A = jnp.eye(20)
jnp.linalg.eigh(A)

# Compatibility with maptlotlib

def evaluate_polynomial(x, coeffs):
    y = jnp.zeros_like(x)
    for k, c in enumerate(coeffs):
        y += c * x**k
    return y

# Get a random polynomial of degree 3
polynomial_degree = 10
coeffs = np.random.normal(size=[polynomial_degree + 1])
y_poly = evaluate_polynomial(x, coeffs)
print("Shapes of non-vectorized version: y_poly = f(x, coeffs)")
print(f"x.shape = {x.shape}")
print(f"coeffs.shape = {coeffs.shape}")
print(f"y.shape = {y.shape}")

nr_of_polynomials = 3
coeffs = np.random.normal(size=[nr_of_polynomials, polynomial_degree + 1])
# This does not work, because we have not written our function to accept vectorized arguments
try:
    y_poly = evaluate_polynomial(x, coeffs)
except TypeError:
    print("Incompatible shapes")

# But we can "automagically" vectorize our function using JAX
evaluate_polynomial_vectorized = jax.vmap(evaluate_polynomial, in_axes=(None, 0), out_axes=0)
y_poly = evaluate_polynomial_vectorized(x, coeffs)
print("jax.vmap added a vectorized dimension as 0-th dimension to the 2nd argument (coeffs) and the output:")
print("Shapes of vectorized version: y_poly = f(x, coeffs)")
print(f"x.shape = {x.shape}")
print(f"coeffs.shape = {coeffs.shape}")
print(f"y_poly.shape = {y_poly.shape}")

evaluate_poly_compiled = jax.jit(evaluate_polynomial_vectorized)
t0 = time.time()
evaluate_polynomial_vectorized(x, coeffs)
t1 = time.time()
evaluate_poly_compiled(x, coeffs)
t2 = time.time()
evaluate_poly_compiled(x, coeffs)
t3 = time.time()

print(f"Non-compiled version                      : {t1 - t0: .4f} sec")
print(f"First call to JITed version (compile time): {t2 - t1: .4f} sec")
print(f"Subsequent calls to JITed version         : {t3 - t2: .4f} sec")

def my_func(x):
    return jnp.sin(x) + x**2

def derivative_by_hand(x):
    return jnp.cos(x) + 2*x

derivative_by_backprop = jax.grad(my_func, argnums=0)
derivative_by_backprop = jax.vmap(derivative_by_backprop)

x = jnp.linspace(-2, 2, 500)
