# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/notebooks/Neural_Network_and_Data_Loading.md (Training a simple neural network, with PyTorch data loading)
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order; IPython !pip magic dropped); synthetic data instead of MNIST via torchvision/PyTorch (the torch/torchvision imports, numpy_collate/flatten_and_cast helpers, MNIST datasets and DataLoader replaced by numpy random 0-255 images with labels from a fixed random linear map, batched into a list of (images, labels) pairs; the unused `from jax.tree_util import tree_map` import dropped); smaller sizes (512 train / 128 test examples, layer sizes [784, 512, 512, 10] -> [784, 128, 128, 10], 8 -> 3 epochs)
# Ignore lines matching: ^Epoch \d+ in .* sec$

import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random

# A helper function to randomly initialize weights and biases
# for a dense neural network layer
def random_layer_params(m, n, key, scale=1e-2):
  w_key, b_key = random.split(key)
  return scale * random.normal(w_key, (n, m)), scale * random.normal(b_key, (n,))

# Initialize all layers for a fully-connected neural network with sizes "sizes"
def init_network_params(sizes, key):
  keys = random.split(key, len(sizes))
  return [random_layer_params(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]

layer_sizes = [784, 128, 128, 10]
step_size = 0.01
num_epochs = 3
batch_size = 128
n_targets = 10
params = init_network_params(layer_sizes, random.key(0))

from jax.scipy.special import logsumexp

def relu(x):
  return jnp.maximum(0, x)

def predict(params, image):
  # per-example predictions
  activations = image
  for w, b in params[:-1]:
    outputs = jnp.dot(w, activations) + b
    activations = relu(outputs)

  final_w, final_b = params[-1]
  logits = jnp.dot(final_w, activations) + final_b
  return logits - logsumexp(logits)

# This works on single examples
random_flattened_image = random.normal(random.key(1), (28 * 28,))
preds = predict(params, random_flattened_image)
print(preds.shape)

# Doesn't work with a batch
random_flattened_images = random.normal(random.key(1), (10, 28 * 28))
try:
  preds = predict(params, random_flattened_images)
except TypeError:
  print('Invalid shapes!')

# Let's upgrade it to handle batches using `vmap`

# Make a batched version of the `predict` function
batched_predict = vmap(predict, in_axes=(None, 0))

# `batched_predict` has the same call signature as `predict`
batched_preds = batched_predict(params, random_flattened_images)
print(batched_preds.shape)

def one_hot(x, k, dtype=jnp.float32):
  """Create a one-hot encoding of x of size k."""
  return jnp.array(x[:, None] == jnp.arange(k), dtype)

def accuracy(params, images, targets):
  target_class = jnp.argmax(targets, axis=1)
  predicted_class = jnp.argmax(batched_predict(params, images), axis=1)
  return jnp.mean(predicted_class == target_class)

def loss(params, images, targets):
  preds = batched_predict(params, images)
  return -jnp.mean(preds * targets)

@jit
def update(params, x, y):
  grads = grad(loss)(params, x, y)
  return [(w - step_size * dw, b - step_size * db)
          for (w, b), (dw, db) in zip(params, grads)]

import numpy as np

# Synthetic stand-in for torchvision's MNIST: random 0-255 images, labels from a fixed random linear map.
data_rng = np.random.RandomState(0)
label_map = data_rng.randn(28 * 28, n_targets).astype(np.float32)
def synthetic_mnist(n):
  images = data_rng.randint(0, 256, size=(n, 28 * 28)).astype(np.float32)
  labels = np.argmax((images - 127.5) @ label_map, axis=1)
  return images, labels

train_images, train_targets = synthetic_mnist(512)
training_generator = [(train_images[i:i + batch_size], train_targets[i:i + batch_size])
                      for i in range(0, len(train_images), batch_size)]

# Get the full train dataset (for checking accuracy while training)
train_labels = one_hot(train_targets, n_targets)

# Get full test dataset
test_images_np, test_targets = synthetic_mnist(128)
test_images = jnp.array(test_images_np, dtype=jnp.float32)
test_labels = one_hot(test_targets, n_targets)

import time

for epoch in range(num_epochs):
  start_time = time.time()
  for x, y in training_generator:
    y = one_hot(y, n_targets)
    params = update(params, x, y)
  epoch_time = time.time() - start_time

  train_acc = accuracy(params, train_images, train_labels)
  test_acc = accuracy(params, test_images, test_labels)
  print("Epoch {} in {:0.2f} sec".format(epoch, epoch_time))
  print("Training set accuracy {}".format(train_acc))
  print("Test set accuracy {}".format(test_acc))
