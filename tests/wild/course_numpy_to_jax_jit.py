# Source: https://github.com/IanQS/numpy_to_jax/blob/efe090d340fb77708dd6a65e70b3465a4a42e061/solutions/exe_02_jit.ipynb (Ian Quah, NumPy-to-JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; IPython %timeit magics dropped); smaller sizes (the benchmark inputs np.random.rand(1000, 1000) -> (100, 100) and (4_000, 4_000) -> (400, 400); with the %timeit lines dropped they are only created)

import jax.numpy as jnp
import numpy as np
import jax

np.random.seed(42)

import copy
class ShoppingCart:
    def __init__(self):
        self.items = []

    def add_item(self, item):
        self.items.append(item)  # Side effect: modifying internal state

    def __repr__(self):
        return f"ShoppingCart({self.items})"

cart = ShoppingCart()
cart.add_item("banana")
print(cart)
cart.add_item("apple")
print(cart)
print("*" * 10)

class FunctionalShoppingCart:
    def __init__(self):
        self.items = []

    def add_item(self, item):
        new_cart = FunctionalShoppingCart()
        all_items = copy.deepcopy(self.items)
        all_items.append(item)
        new_cart.items = all_items
        return new_cart

    def __repr__(self):
        return f"FunctionalShoppingCart({self.items})"

func_cart = FunctionalShoppingCart()
func_cart.add_item("banana")  # <- The banana was not added!
print(func_cart)
func_cart = func_cart.add_item("apple")
print(func_cart)

def doubler(x):
    return x * 2

@jax.jit
def jitted_doubler(x):
    return x * 2

alternative_jitted_doubler = jax.jit(doubler)

input_arr = np.random.rand(100, 100)

def func_np(m):
    mask = m > 0.5
    m = np.where(mask, m**2, np.sqrt(m))
    return m @ m

print("Numpy version")

input_arr_j = jnp.asarray(input_arr)

def func_jax(m):
    mask = m > 0.5
    m = jnp.where(mask, m ** 2, jnp.sqrt(m))
    return m @ m

print("Jax Non-Jit version")

jitted_func = jax.jit(func_jax) # Your code here

print("Jax Jitted version")

input_arr = np.random.rand(400, 400)
print("Numpy version")

input_arr_j = jnp.asarray(input_arr)

print("Jax Non-Jit version")

jitted_func = jax.jit(func_jax)

print("Jax Jitted version")

small_rand_jnp = jnp.asarray(np.random.rand(3, 3))

count = 0

def impure_non_jit(x):
    return x + x * count

impure_jitted = jax.jit(impure_non_jit)

for i in range(5):
    print(impure_non_jit(small_rand_jnp))
    print(impure_jitted(small_rand_jnp))
    print("*" * 10)
    
    # TODO: update the state here and see how they diverge!
    count += 1
    
