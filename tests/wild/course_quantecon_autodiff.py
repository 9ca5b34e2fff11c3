# Source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/autodiff.md (QuantEcon, Quantitative Economics with JAX: adventures with autodiff)
# License: none stated (see source)
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the `!nvidia-smi` cell dropped); only the JAX/NumPy cells kept: the SymPy cell (`from sympy import symbols, diff` and a symbolic 6th derivative) dropped; matplotlib import and plotting dropped: the two plotting-only cells (a data scatter and the closed-form regression fit) dropped, and in 9 cells the plotting calls replaced by an added print of the plotted values (f_prime/Df on the grid, grad of abs and of the branching function over x_grid, jnp.interp and its vmapped gradient, the fitted parameters)

import jax
import jax.numpy as jnp
import numpy as np

def f(x):
    "Original function."
    return np.exp(2 * x)

def f_prime(x):
    "True derivative."
    return 2 * np.exp(2 * x)

def Df(x, h=0.1):
    "Approximate derivative (finite difference)."
    return (f(x + h) - f(x))/h

x_grid = np.linspace(-2, 1, 200)
print(f_prime(x_grid)[:5], Df(x_grid)[:5])

def f(x):
    return jnp.sin(x) - 2 * jnp.cos(3 * x) * jnp.exp(- x**2)

f_prime = jax.grad(f)

x_grid = jnp.linspace(-5, 5, 100)

print(jnp.array([f_prime(x) for x in x_grid])[:5])

def f(x):
    return jnp.abs(x)

f_prime = jax.grad(f)

print(jnp.array([f_prime(x) for x in x_grid])[:5])

print(f_prime(0.0))

def f(x):
    def f1(x):
        for i in range(2):
            x *= 0.2 * x
        return x
    def f2(x):
        x = sum((x**i + i) for i in range(3))
        return x
    y = f1(x) if x < 0 else f2(x)
    return y

f_prime = jax.grad(f)

x_grid = jnp.linspace(-5, 5, 100)

print([f(x) for x in x_grid][:3])
print(jnp.array([f_prime(x) for x in x_grid])[::10])

n = 20
xp = jnp.linspace(-5, 5, n)
yp = jnp.cos(2 * xp)

print(jnp.interp(x_grid, xp, yp)[:5])

f_prime = jax.grad(jnp.interp)

f_prime_vec = jax.vmap(f_prime, in_axes=(0, None, None))

print(f_prime_vec(x_grid, xp, yp)[:10])

def grad_descent(f,       # Function to be minimized
                 args,    # Extra arguments to the function
                 x0,      # Initial condition
                 λ=0.1,   # Initial learning rate
                 tol=1e-5, 
                 max_iter=1_000):
    """
    Minimize the function f via gradient descent, starting from guess x0.

    The learning rate is computed according to the Barzilai-Borwein method.
    
    """
    
    f_grad = jax.grad(f)
    x = jnp.array(x0)
    df = f_grad(x, args)
    ϵ = tol + 1
    i = 0
    while ϵ > tol and i < max_iter:
        new_x = x - λ * df
        new_df = f_grad(new_x, args)
        Δx = new_x - x
        Δdf = new_df - df
        λ = jnp.abs(Δx @ Δdf) / (Δdf @ Δdf)
        ϵ = jnp.max(jnp.abs(Δx))
        x, df = new_x, new_df
        i += 1
        
    return x
    

n = 100
key = jax.random.key(1234)
x = jax.random.uniform(key, (n,))

α, β, σ = 0.5, 1.0, 0.1  # Set the true intercept and slope.
key, subkey = jax.random.split(key)
ϵ = jax.random.normal(subkey, (n,))

y = α * x + β + σ * ϵ

mx = x.mean()
my = y.mean()
α_hat = jnp.sum((x - mx) * (y - my)) / jnp.sum((x - mx)**2)
β_hat = my - α_hat * mx

print(α_hat, β_hat)

@jax.jit
def loss(params, data):
    a, b = params
    x, y = data
    return jnp.sum((y - a * x - b)**2)

p0 = jnp.zeros(2)  # Initial guess for α, β
data = x, y
α_hat, β_hat = grad_descent(loss, data, p0)

x_grid = jnp.linspace(0, 1, 100)
print(α_hat, β_hat)

@jax.jit
def loss(params, data):
    a, b, c = params
    x, y = data
    return jnp.sum((y - a * x**2 - b * x - c)**2)

p0 = jnp.zeros(3)
α_hat, β_hat, γ_hat = grad_descent(loss, data, p0)
print(α_hat, β_hat, γ_hat)

def loss(params, data):
    x, y = data
    return jnp.sum((y - jnp.polyval(params, x))**2)

k = 4
p0 = jnp.zeros(k)
p_hat = grad_descent(loss, data, p0)
print('Estimated parameter vector:')
print(p_hat)
print('\n\n')
