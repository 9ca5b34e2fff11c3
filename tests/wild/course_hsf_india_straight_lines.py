# Source: https://github.com/gordonwatts/hsf-india-ml-tutorial-2025-09/blob/95e5ed1e85e7cde35625d8a9294c7cdb396f7a32/00-Intro.ipynb (Gordon Watts, HSF India ML tutorial, Sept 2025)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); only the pure-JAX first part is kept (the cells from `import flax.linen as nn` on, which train a Flax/optax MLP, are dropped); matplotlib import and plotting calls dropped

import jax # Access to the library
import jax.numpy as jnp # Easy access to numpy like functions in jax

# random number tracking in JAX
rng = jax.random.PRNGKey(0)
rng, new_key = jax.random.split(rng)

slope = 3
intercept = 2

# Straight line with jitter
n_items = 100
x = jax.random.normal(rng, (n_items,))
jitter = jax.random.normal(new_key, (n_items,))
y = slope * x + intercept + 0.5 * jitter

print([f"({f_x:0.2f}, {f_y:0.2f})" for f_x, f_y in list(zip(x,y))[0:5]])

# plt.plot(x, 3 * x + 2, color="red")

n = len(x)
beta_1 = (n * jnp.sum(x * y) - jnp.sum(x) * jnp.sum(y)) / (
    n * jnp.sum(x**2) - jnp.sum(x) ** 2
)
beta_0 = (jnp.sum(y) - beta_1 * jnp.sum(x)) / n

print(f"beta_0: {beta_0:.2f}")
print(f"beta_1: {beta_1:.2f}")

# Add beta_0 and beta_1 values as text on the plot

def x2(beta):
    x, y = beta
    return x**2 + 2*y**2

print(f"x2(1, 1)= {x2((1,1))}")
print(f"x2(2, 2)= {x2((2,2))}")
print(f"x2(3, 3)= {x2((3,3))}")

grad_of_x2 = jax.grad(x2)

print(f"grad_of_x2(1, 0)= {grad_of_x2((1.0,0.0))}")
print(f"grad_of_x2(2, 0)= {grad_of_x2((2.0,0.0))}")
print(f"grad_of_x2(3, 0)= {grad_of_x2((3.0,0.0))}")
print(f"grad_of_x2(0, 1)= {grad_of_x2((0.0,1.0))}")

def network(beta, x):
    b0, b1 = beta
    return b0 + b1 * x

def loss(params, x, y):
    '''Calculate the mean squared error loss.

    Args:
        params (tuple): A tuple containing the model parameters (b0, b1).
        x (array): The input features.
        y (array): The true labels (ground truth).

    Returns:
        float: The mean squared error loss.
    '''
    y_pred = network(params, x)
    return jnp.mean((y_pred - y) ** 2)

grad_of_loss = jax.grad(loss)

def one_epoch(beta, x, y, i_epoch):
    g = grad_of_loss(beta, x, y)
    beta -= 0.1 * g
    print(f"Step {i_epoch}, loss {loss(beta, x, y)}")
    return beta

beta = jnp.array([1.0, 1.0])

for i_epoch in range(10):
    beta = one_epoch(beta, x, y, i_epoch)

print(f"Final parameters: {beta}")

beta = jnp.array([1.0, 1.0])
beta_history = [beta]
for i in range(50):
    beta = one_epoch(beta, x, y, i)
    beta_history.append(beta.copy())

nn_beta_0, nn_beta_1 = beta
print(f"beta_0 (b): {nn_beta_0:.2f} - least squares: {beta_0:.2f}")
print(f"beta_1 (m): {nn_beta_1:.2f} - least squares: {beta_1:.2f}")

# Extract the first coordinate from param_history
first_coordinate = [b[0] for b in beta_history]

# Plot the first coordinate as a function of the epoch number

# Extract the first coordinate from param_history
first_coordinate = [b[1] for b in beta_history]

# Plot the first coordinate as a function of the epoch number
