# A module the playground does not have.
import jax
import torch
