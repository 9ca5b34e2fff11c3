# Source: https://github.com/alucantonio/data_enhanced_simulation/blob/8f3b21b12d779ca80264838e4f3511620ddde8b7/1_JAXintro_solutions.ipynb (Alessandro Lucantonio, Data-enhanced simulation course)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order); fewer steps (num_epochs 1000 -> 200)

import jax
import jax.numpy as jnp
from jax import grad, jit

# Generate synthetic data
key = jax.random.PRNGKey(0)
true_w = jnp.array([2.0, -3.0])  # True weights for the synthetic data
true_b = 5.0  # True bias for the synthetic data
num_samples = 100
x = jax.random.normal(key, (num_samples, 2))  # Input features
y = jnp.dot(x, true_w) + true_b  # Targets

# Define the model
def model(weights, bias, x):
    return jnp.dot(x, weights) + bias

# Mean squared error loss function
def mse_loss(weights, bias, x, y):
    predictions = model(weights, bias, x)
    return jnp.mean((predictions - y) ** 2)

# Gradient of the loss function
grad_mse_loss = grad(mse_loss, argnums=(0, 1))

# Training step
@jit
def train_step(weights, bias, x, y, learning_rate):
    gradients = grad_mse_loss(weights, bias, x, y)
    new_weights = weights - learning_rate * gradients[0]
    new_bias = bias - learning_rate * gradients[1]
    return new_weights, new_bias

# Initialize parameters
weights = jax.random.normal(key, (2,))
bias = 0.0
learning_rate = 0.01
num_epochs = 200

# Training loop
for epoch in range(num_epochs):
    weights, bias = train_step(weights, bias, x, y, learning_rate)
    if epoch % 100 == 0:
        current_loss = mse_loss(weights, bias, x, y)
        print(f"Epoch {epoch}, Loss: {current_loss}")

# Print the final parameters
print("Learned weights:", weights)
print("Learned bias:", bias)

# Define the system of nonlinear equations
@jit
def system_of_equations(x):
    # Example equations:
    # Equation 1: x0^2 + x1 - 37 = 0
    # Equation 2: x0 - x1^2 - 5 = 0
    return jnp.array([
        x[0]**2 + x[1] - 37,
        x[0] - x[1]**2 - 5
    ])

from scipy.optimize import root

# Function to compute the Jacobian using JAX
@jit
def jacobian(x):
    return jax.jacfwd(system_of_equations)(x)

# Initial guess for the solution
initial_guess = jnp.array([1.0, 1.0])

# Use scipy's root function to find the solution
solution = root(system_of_equations, initial_guess, jac=jacobian)

# Print the solution
print("Solution:", solution.x)
print("Function value at solution:", system_of_equations(solution.x))
print("Jacobian at solution:", jacobian(solution.x))
