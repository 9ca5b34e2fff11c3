"""jax.example_libraries: JAX's small neural-network (stax) and optimizer libraries."""
