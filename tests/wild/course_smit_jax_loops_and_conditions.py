# Source: https://github.com/Smit-create/jax_tutorial/blob/4e4e8a4a52afb7122ce8ba22ae50825aaa1c0f5e/lectures/lecture_03.md (Smit Lunagariya, JAX tutorial lecture series, lecture 3: loops and conditions in JAX)
# License: none stated (see source)
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the `%time` prefix dropped from 4 statements, the statements kept); a print of the two timed results added at the end

import jax.numpy as jnp
import jax

# Define a Python loop to sum the squares of numbers from `start` to `end`
def sum_squares(start, end):
    total_sum = 0
    for i in range(10):
        total_sum += i ** 2
    return total_sum

print(sum_squares(1, 10))

# Rewrite the loop using jax.lax.fori_loop
def sum_squares_jax(start, end):

    def body_fun(i, total):
        return total + i ** 2

    return jax.lax.fori_loop(start,    # lower
                             end,      # upper
                             body_fun, # body_fun
                             0)        # init_val (of total)

print(sum_squares_jax(0, 10))

# Define a Python while loop to compute the factorial of `n`
def factorial(n):
    result = 1
    i = 1
    while i <= n:
        result *= i
        i += 1
    return result

print(factorial(6))

# Rewrite the loop using jax.lax.while_loop
def factorial_jax(n):

    def condition(state):
        i, result = state
        return i <= n

    def body(state):
        i, result = state
        return (i + 1, result * i)

    _, result = jax.lax.while_loop(condition, # cond_fun
                                   body,      # body_fun
                                   (1, 1))    # init_value (i=1, result=1)
    return result

print(factorial_jax(6))

# Define a Python function to compute cumulative sums of a list
def cumulative_sums(nums):
    cumulative_sums = []
    total = 0
    for num in nums:
        total += num
        cumulative_sums.append(total)
    return cumulative_sums

nums = [1, 2, 3, 4, 5]
print(cumulative_sums(nums))

# Rewrite the computation using jax.lax.scan
def cumulative_sums_jax(nums):

    def body(total, num):
        return total + num, total + num

    total, cumulative_sums_array =  jax.lax.scan(body,   # f
                                                 0,      # init
                                                 nums)   # xs
    return cumulative_sums_array

print(cumulative_sums_jax(jnp.array(nums)))

# Define a Python function to check if a number is positive or negative
def check_sign(x):
    if x > 0:
        return 1
    else:
        return -1

# Execute the Python function with a sample input
print("Sign of 5 (Python):", check_sign(5))
print("Sign of -10 (Python):", check_sign(-10))

# Rewrite the function using jax.cond
def check_sign_jax(x):
    def positive_branch(x):
        return 1
    def negative_branch(x):
        return -1

    return jax.lax.cond(x > 0,           # pred
                        positive_branch, # true_fn
                        negative_branch, # false_fn
                        x)               # operands

# Execute the JAX function with the same input
print("Sign of 5 (JAX cond):", check_sign_jax(5))
print("Sign of -10 (JAX cond):", check_sign_jax(-10))

computation_jit_lax = jax.jit(sum_squares_jax)
computation_jit_python = jax.jit(sum_squares, static_argnums=(0, 1))

# Compare execution times
x = 10000

result_jit_lax = computation_jit_lax(0, x)

result_jit_lax = computation_jit_lax(0, x)

result_jit_python = computation_jit_python(0, x)

result_jit_python = computation_jit_python(0, x)

print(result_jit_lax, result_jit_python)
