"""Writes the expected output of tests/scripts/*.py from real JAX (pip install "jax[cpu]").

A TPU at DEFAULT precision rounds f32 matmul operands to bfloat16 and accumulates the exact
products in f32; on the CPU we get the same numbers by rounding the operands explicitly.
Run from the repository root: python3 tests/scripts/make_expected.py
"""
import contextlib
import io
import pathlib

import jax.numpy as jnp


def bf16(a):
    return a.astype(jnp.bfloat16).astype(jnp.float32)


def skeleton():
    x = jnp.arange(12.0).reshape(3, 4) / 10.0
    w = jnp.ones((4, 5)) * 0.5
    print(jnp.tanh(bf16(x) @ bf16(w)) * 2.0 + 1.0)


def skeleton_highest():
    x = jnp.arange(12.0).reshape(3, 4) / 10.0
    w = jnp.ones((4, 5)) * 0.5
    print(jnp.tanh(jnp.matmul(x, w, precision="highest")) * 2.0 + 1.0)


CASES = {"skeleton.expected": skeleton, "skeleton.highest.expected": skeleton_highest}

if __name__ == "__main__":
    here = pathlib.Path(__file__).parent
    for name, fn in CASES.items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            fn()
        (here / name).write_text(out.getvalue())
        print(f"wrote {name}")
