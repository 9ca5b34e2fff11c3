# Source: https://github.com/Smit-create/jax_tutorial/blob/4e4e8a4a52afb7122ce8ba22ae50825aaa1c0f5e/lectures/lecture_05.md (Smit-create, JAX tutorial lecture 5: linear and logistic regression trained by gradient descent)
# License: none stated (see source)
# Changed: MyST notebook page converted to a script (code cells concatenated in order); matplotlib import and the three plotting-only cells (the data scatter, the dataset scatter and the decision-boundary plot) dropped

import jax
import jax.numpy as jnp

actual_W = 3.0
actual_b = 2.0
num_points = 10

key = jax.random.PRNGKey(0)
X = jnp.arange(num_points).reshape((num_points, 1))
y_actual = actual_W * X + actual_b
noise = jax.random.normal(key, (num_points, 1))
y = y_actual + noise

# Forward pass
@jax.jit
def forward(params, x):
    return jnp.dot(x, params['W']) + params['b']

# Define loss function of linear regression
@jax.jit
def loss_fn(params, x, y):
    preds = forward(params, x)
    return jnp.mean((preds - y) ** 2)

# Define gradient function
grad_fn = jax.jit(jax.grad(loss_fn))

# Define model parameters (Initialize them)
params = {
    'W': jax.random.normal(key, (1, 1)),
    'b': jnp.zeros((1,))
}

lr = 0.01
num_epochs = 1000
for epoch in range(num_epochs):
    # Compute gradients
    grads = grad_fn(params, X, y_actual)
    # Update parameters
    params['W'] -= lr * grads['W']
    params['b'] -= lr * grads['b']

print("Trained Parameters:")
print("W:", params['W'])
print("b:", params['b'])

key = jax.random.PRNGKey(10)

X = jnp.array([[1, 3], [3, 5], [2, 4], [6, 2], [5, 1]])
y = jnp.array([1, 1, 1, 0, 0]).reshape((5, 1))  # Binary labels (0 or 1)

# Define the sigmoid activation function
@jax.jit
def sigmoid(x):
    return 1 / (1 + jnp.exp(-x))


# Forward pass function
@jax.jit
def forward(params, x):
    return sigmoid(jnp.dot(x, params['W']) + params['b'])


# Define binary cross-entropy loss function
@jax.jit
def loss_fn(params, x, y):
    preds = forward(params, x)
    return -jnp.mean(y * jnp.log(preds) + (1 - y) * jnp.log(1 - preds))

# Define model parameters
params = {
    'W': jax.random.normal(key, (2, 1)),
    'b': jnp.zeros((1,))
}

# Define gradient function
grad_fn = jax.jit(jax.grad(loss_fn))

lr = 0.01
num_epochs = 1000
for epoch in range(num_epochs):
    # Compute gradients
    grads = grad_fn(params, X, y)
    # Update parameters using gradient descent
    params['W'] -= lr * grads['W']
    params['b'] -= lr * grads['b']

# Print trained parameters
print("Trained Parameters:")
print("W:", params['W'])
print("b:", params['b'])
