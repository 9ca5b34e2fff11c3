# Source: https://github.com/probml/probml-notebooks/blob/4c0da5e918930e02de5f3e78278c90efe5688b66/notebooks/gibbs_demo_potts_jax.ipynb
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); matplotlib/tqdm imports dropped and the tqdm(...) progress-bar wrappers and plotting calls removed (the sampling loop over Jvals is kept); fewer steps (niter 8000 -> 3); prints of the sampled states added

import jax
import jax.numpy as jnp 
from jax import lax
from jax import vmap
from jax import random
from jax import jit
import numpy as np

key = random.PRNGKey(12234)

K = 10
ix = 128
iy = 128

kernel = jnp.zeros((3, 3, 1, 1), dtype=jnp.float32)
kernel += jnp.array([[0, 1, 0],
                     [1, 0,1],
                     [0,1,0]])[:, :, jnp.newaxis, jnp.newaxis]

dn = lax.conv_dimension_numbers((K, ix, iy, 1),     # only ndim matters, not shape
                                 kernel.shape,  # only ndim matters, not shape 
                                ('NHWC', 'HWIO', 'NHWC'))  # the important bit

mask = jnp.indices((K, iy, ix, 1)).sum(axis=0) % 2

def checkerboard_pattern1(x):
  return mask[0, :, : , 0]

def checkerboard_pattern2(x):
  return mask[1, :, : , 0]

def make_checkerboard_pattern1():
  arr = vmap(checkerboard_pattern1, in_axes=0)(jnp.array(K*[1]))
  return jnp.expand_dims(arr, -1)

def make_checkerboard_pattern2():
  arr = vmap(checkerboard_pattern2, in_axes=0)(jnp.array(K*[1]))
  return jnp.expand_dims(arr, -1)

def test_state_mat_update(state_mat_update):
  """
  Checking the checkerboard pattern is the same for each channel
  """
  mask = make_checkerboard_pattern1()
  inverse_mask = make_checkerboard_pattern2()
  state_mat = jnp.zeros((K, 128, 128, 1))
  sample = jnp.ones((K, 128, 128, 1))
  new_state = state_mat_update(mask, inverse_mask, sample, state_mat)
  assert jnp.array_equal(new_state[0, :, :, 0], new_state[1, :, :, 0])

def test_state_mat_update2(state_mat_update):
  """
  Checking the checkerboard pattern is the same for each channel
  """
  mask = make_checkerboard_pattern1()
  inverse_mask = make_checkerboard_pattern2()
  state_mat = jnp.ones((K, 128, 128, 1))
  sample = jnp.zeros((K, 128, 128, 1))
  new_state = state_mat_update(mask, inverse_mask, sample, state_mat)
  assert jnp.array_equal(new_state[0, :, :, 0], new_state[1, :, :, 0])

def test_energy(energy):
  """
  If you give the convolution all ones, it will produce the number of edges 
  it is connected to on a grid i.e the number of neighbours around it. 
  """
  X = jnp.ones((3, 3))
  state_mat = jax.nn.one_hot(X, K, axis=0)[:, :, :, jnp.newaxis]
  energy = energy(state_mat, 1)
  assert np.array_equal(energy[1,:,:,0], 
                        jnp.array([[2,3,2], [3, 4, 3], [2, 3, 2]]))

def sampler(K, key, logits):
  # Sample from the energy using gumbel trick
  u = random.uniform(key, shape=(K, ix, iy, 1))
  sample = jnp.argmax(logits - jnp.log(-jnp.log(u)), axis=0)
  sample = jax.nn.one_hot(sample, K, axis=0)
  return sample

def state_mat_update(mask, inverse_mask, sample, state_mat):
  # Update the state_mat using masking
  masked_sample = mask*sample 
  masked_state_mat = inverse_mask*state_mat 
  state_mat  = masked_state_mat+masked_sample
  return state_mat

def energy(state_mat, jvalue):
  # Calculate energy
  logits = lax.conv_general_dilated(state_mat, jvalue*kernel, 
                                    (1,1), 'SAME', (1,1), (1,1), dn)  
  return logits

def gibbs_sampler(key, jvalue, niter=1):
  key, key2 = random.split(key)
  
  X = random.randint(key, shape=(ix, iy), minval=0, maxval=K)
  state_mat = jax.nn.one_hot(X, K, axis=0)[:, :, :, jnp.newaxis]

  mask = make_checkerboard_pattern1()
  inverse_mask = make_checkerboard_pattern2()
  
  @jit
  def state_update(key, state_mat, mask, inverse_mask):
    logits = energy(state_mat, jvalue)  
    sample = sampler(K, key, logits)
    state_mat = state_mat_update(mask, inverse_mask, sample, state_mat)
    return state_mat

  for iter in range(niter):
    key, key2 = random.split(key2)
    state_mat = state_update(key, state_mat, mask, inverse_mask )
    mask, inverse_mask = inverse_mask, mask
      
  return jnp.squeeze(jnp.argmax(state_mat, axis=0), axis=-1)

test_state_mat_update(state_mat_update)
test_state_mat_update2(state_mat_update)
test_energy(energy)

Jvals = [1.42, 1.43, 1.44]

print(gibbs_sampler(key, 1, niter=2))

for t in range(len(Jvals)):
  arr = gibbs_sampler(key, Jvals[t], niter=3)
  print(f"J = {Jvals[t]}", arr.shape, jnp.bincount(arr.ravel(), length=K))
