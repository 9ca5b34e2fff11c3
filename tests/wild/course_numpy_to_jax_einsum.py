# Source: https://github.com/IanQS/numpy_to_jax/blob/efe090d340fb77708dd6a65e70b3465a4a42e061/solutions/extras_einsum.ipynb (Ian Quah, NumPy-to-JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order)

import numpy as np

np.random.seed(42)

import jax.numpy as jnp
from jax.scipy import stats

NUM_FEAT = 10
NUM_SAMPLES = 100

v1 = jnp.asarray(np.random.rand(NUM_FEAT))
v2 = jnp.asarray(np.random.rand(NUM_FEAT))

M1 = jnp.asarray(np.random.rand(NUM_FEAT, NUM_SAMPLES))
M2 = jnp.asarray(np.random.rand(NUM_SAMPLES, NUM_FEAT))

# vector-vector dot-product
def vv_dot():
    res = jnp.dot(v1, v2)
    res2 = v1 @ v2
    res3 = jnp.matmul(v1, v2)

    res_ein = jnp.einsum("i, i", v1, v2)  # Your code here
    
    print("All vector dot-products equivalent?",
        jnp.allclose(res, res2) and jnp.allclose(res2, res3) and jnp.allclose(res3, res_ein)
    )

vv_dot()

# vector-vector outer-product

def vv_outer():
    res = jnp.outer(v1, v2)
    
    res_ein = jnp.einsum("i, j -> ij", v1, v2)  # TODO: Your code here
    print(
        "Outer-products equivalent?",
        jnp.allclose(res, res_ein))

vv_outer()

def mm_mult():
    # Matrix mult
    res_mm = jnp.dot(M1, M2)
    res_ein_mm = jnp.einsum("ij, jk -> ik", M1, M2)  # TODO: Your code here
    print("Matrix-mult equivalent?",jnp.allclose(res_mm, res_ein_mm))

    # Matrix mult then sum along the 0-th axis
    res_mm = np.sum(jnp.dot(M1, M2), axis=0)
    res_ein_mm = jnp.einsum("ij, jk -> k", M1, M2)  # TODO: Your code here
    print("Matrix-mult then sum-rows equivalent?",jnp.allclose(res_mm, res_ein_mm))

    # Matrix mult then sum along the 1st axis
    res_mm = np.sum(jnp.dot(M1, M2), axis=1)
    res_ein_mm = jnp.einsum("ij, jk -> i", M1, M2)  # TODO: Your code here
    print("Matrix-mult then sum-cols equivalent?",jnp.allclose(res_mm, res_ein_mm))

mm_mult()

def trace():

    #############################################
    # Note: the einsum trace is only defined when the matrix is square
    #############################################
    print(
        "Non-square matrix trace equivalent?",
        jnp.allclose(
            jnp.trace(M1), 
            np.einsum("ij->", M1)
        )
    )

    print(
        "Square matrix trace equivalent?",
        jnp.allclose(
            jnp.trace(M1 @ M1.T), 
            np.einsum("ii->", M1 @ M1.T)
        )
    )

def transpose():
    #############################################
    # Transpose
    print(
        "Matrix Transpose equivalent?", jnp.allclose(
        M1.T, 
        np.einsum("ij -> ji", M1)
    ))

def diagonal():
    #############################################
    # Diagonal
    # Note: the einsum diagonal is only defined when the matrix is square
    try:
        print(
            "Diag on non-square matrix equivalent?",
            jnp.allclose(
            jnp.diag(M1), 
            np.einsum("ii -> i", M1)
        ))
    except Exception as e:
        print("\n", e)
        # We get the expected result
        print(
            "Diag on square matrix equivalent?",
            jnp.allclose(
            jnp.diag(M1 @ M1.T), 
            np.einsum("ii -> i", M1 @ M1.T)
        ))


trace()
transpose()
diagonal()

BATCH_SIZE = 128
NUM_CHANNELS = 3
HEIGHT = 32
WIDTH = 32

LEARNED_FILTERS = 5

def tensor_contraction(images, learned_kernels):
    #############################################
    # Method 1: Reshape and reorder
    #############################################
    flattened_images = images.reshape(BATCH_SIZE, HEIGHT * WIDTH * NUM_CHANNELS)
    flattened_kernel = learned_kernels.reshape(LEARNED_FILTERS, HEIGHT * WIDTH * NUM_CHANNELS).transpose()
    res_tc = jnp.matmul(flattened_images, flattened_kernel)

    ################################################
    # Method 2: Einsum 😎
    ################################################
    res_ein = jnp.einsum("bhwn, lhwn -> bl", images, learned_kernels)  # TODO: Your code here

    print(
        "Tensor Contraction Equivalent?",
        jnp.allclose(
            res_tc,
            res_ein
    ))


images = jnp.asarray(np.random.rand(BATCH_SIZE, HEIGHT, WIDTH, NUM_CHANNELS))
learned_kernels = jnp.asarray(np.random.rand(LEARNED_FILTERS, HEIGHT, WIDTH, NUM_CHANNELS))
tensor_contraction(images, learned_kernels)

import numpy as np

def gaussian_pdf(x, mu, Sigma):
    # Dimensions of the data
    k = mu.shape[0]
    
    # Calculate determinant and inverse of the covariance matrix
    Sigma_det = jnp.linalg.det(Sigma)
    Sigma_inv = jnp.linalg.inv(Sigma)
    
    # Calculate the normalization factor
    normalization_factor = 1 / jnp.sqrt((2 * jnp.pi) ** k * Sigma_det)
    x_mu = x - mu
    ###############################################################
    exponent1 = -0.5 * jnp.sum(x_mu @ Sigma_inv * x_mu, axis=1)
    exponent2 = -0.5 * jnp.einsum("NM, MM, NM -> N", x_mu, Sigma_inv, x_mu)  # TODO: Your code here
    print("Exponent calculations equivalent?: ", exponent1 == exponent2)
    ###############################################################
    
    # Compute the Gaussian PDF
    return normalization_factor * jnp.exp(exponent2)

# Example usage
mu = np.array([0, 0])  # Mean vector
Sigma = np.array([[1, 0], [0, 1]])  # Covariance matrix
x = np.array([[1, 1], [2, 2], [3, 3]])  # Point to evaluate the PDF

pdf_value = gaussian_pdf(x, mu, Sigma)

print(jnp.allclose(
    pdf_value, 
    stats.multivariate_normal.pdf(x, mu, Sigma)
))
