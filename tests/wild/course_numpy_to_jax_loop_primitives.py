# Source: https://github.com/IanQS/numpy_to_jax/blob/efe090d340fb77708dd6a65e70b3465a4a42e061/solutions/exe_03_loop_primitives.ipynb (Ian Quah, NumPy-to-JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order)

import numpy as np
import jax.numpy as jnp
import jax

np.random.seed(42)

def while_loop_exercise():
    """
    TODO: 
        implement a function that, given an array of initial values, squares it. While it's greater than
        the TOL, keep going.
        
        If implemented correctly, you should see only a few elements less than 1e-16
    Returns:

    """
    TOL = 1e-16
    initial_values = jnp.asarray(np.random.uniform(low=0.5, high=1, size=(5, 5)))
    print("Starting values:")
    print(initial_values)
    
    def cond(v):
        return jnp.all(v > TOL)
   
    def body_fun(v):
        return v ** 2
        
    
    resp = jax.lax.while_loop(cond, body_fun, initial_values) 
    print("Ending Values")
    print(resp)
    assert jnp.any(resp < TOL)
    print("While loop exercise passed!")
    
def scan_exercise():
    """
    TODO:
        implement a function that, given a 2xN matrix, implements a scan such that the first vector is a sum of the initial values,
            and the second vector is the product of the initial vector
    Returns:

    """
    vector = jnp.asarray([
        [1, 2, 3, 4, 5],  # Final result should be 15
        [2, 4, 6, 8, 10]  # Final result should be 3840
    ]).T
    
    def f(carry, x):
        v1 = carry[0] + x[0]
        v2 = carry[1] * x[1]
        new_carry = jnp.asarray([v1, v2])
        
        return new_carry, new_carry
        
    
    final_result, intermediate_results = jax.lax.scan(f, init=jnp.asarray([0, 1]), xs=vector)
    assert jnp.all(final_result == jnp.asarray([15, 3840]))
    assert jnp.all(intermediate_results == jnp.asarray(
        [
            [1, 3, 6, 10, 15], 
            [2, 8, 48, 384, 3840]
        ]).T)
    
    print("Scan Exercise passed!")
    
    
while_loop_exercise()
print("\n")
scan_exercise()

    
