# Two context managers in one with statement.
import jax

with jax.default_matmul_precision("highest"), jax.default_matmul_precision("default"):
    pass
