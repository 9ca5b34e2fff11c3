# Source: https://github.com/IanQS/numpy_to_jax/blob/efe090d340fb77708dd6a65e70b3465a4a42e061/solutions/exe_01_jax_intro.ipynb (Ian Quah, NumPy-to-JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order)

import numpy as np
import jax.numpy as jnp

np.random.seed(42)

def dot_product():
    v = np.random.rand(10)
    M = np.random.rand(10, 5)

    expected_result = np.dot(v, M)
    actual_result = jnp.dot(v, M) # Your code here

    assert jnp.allclose(expected_result, actual_result)
    print("Dot product passed")
    

def is_even_filter():
    to_filter_np = np.asarray([1, 2, 3, 5, 10, 20])
    expected_result = to_filter_np[to_filter_np % 2 == 0]

    to_filter_jnp = jnp.asarray(to_filter_np)
    actual_result = to_filter_jnp[to_filter_jnp % 2 == 0] # Your code here

    assert jnp.allclose(expected_result, actual_result)
    print("is_even_filter passed")

def top_n_of_norm_squared():
    M = np.random.rand(10, 5)
    TOP_N = 5
    
    expected_result = np.sort(np.linalg.norm(M @ M.T, axis=1))[::-1][:TOP_N]

    jnp_M = jnp.asarray(M)
    actual_result = jnp.sort(jnp.linalg.norm(jnp_M @ jnp_M.T, axis=1))[::-1][:TOP_N] # Your code here

    assert jnp.allclose(expected_result, actual_result)
    print("top_n_of_norm_squared passed")

def hadamard():
    M = np.random.rand(10, 5)
    expected_result = M * M

    jnp_M = jnp.asarray(M)
    actual_result = jnp_M * jnp_M # Your code here

    assert jnp.allclose(expected_result, actual_result)
    print("hadamard passed")
    
    

dot_product()
is_even_filter()
top_n_of_norm_squared()
hadamard()
