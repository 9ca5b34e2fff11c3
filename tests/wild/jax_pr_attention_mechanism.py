# Source: https://github.com/jax-ml/jax/blob/b6b64ae23b694370ad5b838f090865e67e39f184/docs/notebooks/attention_mechanism_in_jax.ipynb (first commit of a docs pull request by Wahyu Ardiansyah, 2025-12-08; the later revision of that PR fails under jit)
# License: Apache-2.0
# Changed: notebook converted to a script (code cells concatenated in order); matplotlib import, the plot_attention_weights helper and all plotting calls dropped; fewer steps (num_epochs 100 -> 40)
# Ignore lines matching: ^(JAX version|Available devices): 

import jax
import jax.numpy as jnp
from jax import random, grad, jit, vmap
import numpy as np


# Check JAX version
print(f"JAX version: {jax.__version__}")
print(f"Available devices: {jax.devices()}")

def scaled_dot_product_attention(query, key, value, mask=None):
    """
    Compute scaled dot-product attention.
    
    Args:
        query: Array of shape (..., seq_len_q, d_k)
        key: Array of shape (..., seq_len_k, d_k)
        value: Array of shape (..., seq_len_k, d_v)
        mask: Optional boolean mask of shape (..., seq_len_q, seq_len_k)
    
    Returns:
        output: Weighted sum of values, shape (..., seq_len_q, d_v)
        attention_weights: Attention weights, shape (..., seq_len_q, seq_len_k)
    """
    # Get the dimension of keys for scaling
    d_k = query.shape[-1]
    
    # Step 1: Compute attention scores (QK^T)
    # query: (..., seq_len_q, d_k)
    # key.T: (..., d_k, seq_len_k)
    # scores: (..., seq_len_q, seq_len_k)
    scores = jnp.matmul(query, jnp.swapaxes(key, -2, -1))
    
    # Step 2: Scale by sqrt(d_k) to prevent softmax saturation
    scaled_scores = scores / jnp.sqrt(d_k)
    
    # Step 3: Apply mask if provided (for decoder self-attention)
    if mask is not None:
        # Replace masked positions with very negative values
        scaled_scores = jnp.where(mask, scaled_scores, -1e9)
    
    # Step 4: Apply softmax to get attention weights
    attention_weights = jax.nn.softmax(scaled_scores, axis=-1)
    
    # Step 5: Multiply weights by values
    output = jnp.matmul(attention_weights, value)
    
    return output, attention_weights

# Initialize random key
key = random.key(42)

# Create sample Q, K, V matrices
seq_len = 4
d_k = 8  # dimension of keys
d_v = 8  # dimension of values

# Split key for random generation
key, q_key, k_key, v_key = random.split(key, 4)

# Random Q, K, V matrices
Q = random.normal(q_key, (seq_len, d_k))
K = random.normal(k_key, (seq_len, d_k))
V = random.normal(v_key, (seq_len, d_v))

print(f"Query shape: {Q.shape}")
print(f"Key shape: {K.shape}")
print(f"Value shape: {V.shape}")

# Compute attention
output, attention_weights = scaled_dot_product_attention(Q, K, V)

print(f"\nOutput shape: {output.shape}")
print(f"Attention weights shape: {attention_weights.shape}")

# Verify attention weights sum to 1
print(f"\nAttention weights sum (per query): {attention_weights.sum(axis=-1)}")

def init_multihead_attention_params(key, d_model, num_heads):
    """
    Initialize parameters for Multi-Head Attention.
    
    Args:
        key: JAX random key
        d_model: Model dimension
        num_heads: Number of attention heads
    
    Returns:
        Dictionary of parameters
    """
    assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
    d_k = d_model // num_heads
    
    # Split key for each weight matrix
    keys = random.split(key, 4)
    
    # Initialize weight matrices with Xavier/Glorot initialization
    scale = jnp.sqrt(2.0 / (d_model + d_k))
    
    params = {
        'W_q': random.normal(keys[0], (d_model, d_model)) * scale,
        'W_k': random.normal(keys[1], (d_model, d_model)) * scale,
        'W_v': random.normal(keys[2], (d_model, d_model)) * scale,
        'W_o': random.normal(keys[3], (d_model, d_model)) * scale,
    }
    
    return params


def multihead_attention(params, query, key, value, num_heads, mask=None):
    """
    Compute Multi-Head Attention.
    
    Args:
        params: Dictionary containing W_q, W_k, W_v, W_o
        query: Input query of shape (batch_size, seq_len, d_model)
        key: Input key of shape (batch_size, seq_len, d_model)
        value: Input value of shape (batch_size, seq_len, d_model)
        num_heads: Number of attention heads
        mask: Optional attention mask
    
    Returns:
        output: Multi-head attention output
        attention_weights: Attention weights from all heads
    """
    batch_size = query.shape[0]
    seq_len = query.shape[1]
    d_model = query.shape[2]
    d_k = d_model // num_heads
    
    # Step 1: Linear projections
    Q = jnp.matmul(query, params['W_q'])  # (batch, seq_len, d_model)
    K = jnp.matmul(key, params['W_k'])
    V = jnp.matmul(value, params['W_v'])
    
    # Step 2: Reshape for multi-head attention
    # (batch, seq_len, d_model) -> (batch, num_heads, seq_len, d_k)
    Q = Q.reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    K = K.reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    V = V.reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    
    # Step 3: Apply attention to all heads in parallel
    # Q, K, V are now (batch, num_heads, seq_len, d_k)
    attention_output, attention_weights = scaled_dot_product_attention(Q, K, V, mask)
    
    # Step 4: Concatenate heads
    # (batch, num_heads, seq_len, d_k) -> (batch, seq_len, d_model)
    attention_output = attention_output.transpose(0, 2, 1, 3).reshape(
        batch_size, seq_len, d_model
    )
    
    # Step 5: Final linear projection
    output = jnp.matmul(attention_output, params['W_o'])
    
    return output, attention_weights

# Test Multi-Head Attention
batch_size = 2
seq_len = 6
d_model = 64
num_heads = 8

# Initialize parameters
key = random.key(0)
key, params_key, input_key = random.split(key, 3)

mha_params = init_multihead_attention_params(params_key, d_model, num_heads)

# Create random input
x = random.normal(input_key, (batch_size, seq_len, d_model))

# Apply multi-head attention (self-attention: Q=K=V)
output, attn_weights = multihead_attention(mha_params, x, x, x, num_heads)

print(f"Input shape: {x.shape}")
print(f"Output shape: {output.shape}")
print(f"Attention weights shape: {attn_weights.shape}")
print(f"  -> (batch_size, num_heads, seq_len_q, seq_len_k)")

def sinusoidal_positional_encoding(seq_len, d_model):
    """
    Create sinusoidal positional encoding.
    
    Args:
        seq_len: Length of the sequence
        d_model: Dimension of the model
    
    Returns:
        Positional encoding matrix of shape (seq_len, d_model)
    """
    # Create position indices: (seq_len, 1)
    position = jnp.arange(seq_len)[:, jnp.newaxis]
    
    # Create dimension indices: (d_model/2,)
    div_term = jnp.exp(
        jnp.arange(0, d_model, 2) * (-jnp.log(10000.0) / d_model)
    )
    
    # Compute sin and cos
    pe = jnp.zeros((seq_len, d_model))
    pe = pe.at[:, 0::2].set(jnp.sin(position * div_term))
    pe = pe.at[:, 1::2].set(jnp.cos(position * div_term))
    
    return pe

# Create and visualize positional encoding
seq_len = 50
d_model = 64
pe = sinusoidal_positional_encoding(seq_len, d_model)

print(f"Positional encoding shape: {pe.shape}")


def layer_norm(x, gamma, beta, eps=1e-6):
    """
    Apply Layer Normalization.
    
    Args:
        x: Input tensor of shape (..., d_model)
        gamma: Scale parameter of shape (d_model,)
        beta: Shift parameter of shape (d_model,)
        eps: Small constant for numerical stability
    
    Returns:
        Normalized tensor of same shape as x
    """
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.var(x, axis=-1, keepdims=True)
    normalized = (x - mean) / jnp.sqrt(variance + eps)
    return gamma * normalized + beta


def feed_forward_network(x, params):
    """
    Feed-Forward Network with ReLU activation.
    
    FFN(x) = max(0, xW1 + b1)W2 + b2
    
    Args:
        x: Input tensor of shape (..., d_model)
        params: Dictionary with W1, b1, W2, b2
    
    Returns:
        Output tensor of shape (..., d_model)
    """
    # First linear layer + ReLU
    hidden = jax.nn.relu(jnp.matmul(x, params['W1']) + params['b1'])
    # Second linear layer
    output = jnp.matmul(hidden, params['W2']) + params['b2']
    return output

def init_transformer_block_params(key, d_model, num_heads, d_ff):
    """
    Initialize all parameters for a Transformer block.
    
    Args:
        key: JAX random key
        d_model: Model dimension
        num_heads: Number of attention heads
        d_ff: Dimension of feed-forward hidden layer
    
    Returns:
        Dictionary of all parameters
    """
    keys = random.split(key, 6)
    
    # Multi-head attention parameters
    mha_params = init_multihead_attention_params(keys[0], d_model, num_heads)
    
    # Layer norm parameters
    ln1_gamma = jnp.ones(d_model)
    ln1_beta = jnp.zeros(d_model)
    ln2_gamma = jnp.ones(d_model)
    ln2_beta = jnp.zeros(d_model)
    
    # Feed-forward parameters
    scale1 = jnp.sqrt(2.0 / (d_model + d_ff))
    scale2 = jnp.sqrt(2.0 / (d_ff + d_model))
    
    ffn_params = {
        'W1': random.normal(keys[1], (d_model, d_ff)) * scale1,
        'b1': jnp.zeros(d_ff),
        'W2': random.normal(keys[2], (d_ff, d_model)) * scale2,
        'b2': jnp.zeros(d_model),
    }
    
    return {
        'mha': mha_params,
        'ln1_gamma': ln1_gamma,
        'ln1_beta': ln1_beta,
        'ln2_gamma': ln2_gamma,
        'ln2_beta': ln2_beta,
        'ffn': ffn_params,
    }


def transformer_block(params, x, num_heads, mask=None, dropout_key=None, dropout_rate=0.1):
    """
    Apply a single Transformer encoder block.
    
    Args:
        params: Block parameters
        x: Input tensor of shape (batch_size, seq_len, d_model)
        num_heads: Number of attention heads
        mask: Optional attention mask
        dropout_key: Optional key for dropout
        dropout_rate: Dropout probability
    
    Returns:
        Output tensor of same shape as input
    """
    # 1. Multi-Head Self-Attention
    attn_output, attn_weights = multihead_attention(
        params['mha'], x, x, x, num_heads, mask
    )
    
    # 2. Add & Normalize (first residual connection)
    x = layer_norm(
        x + attn_output,
        params['ln1_gamma'],
        params['ln1_beta']
    )
    
    # 3. Feed-Forward Network
    ffn_output = feed_forward_network(x, params['ffn'])
    
    # 4. Add & Normalize (second residual connection)
    output = layer_norm(
        x + ffn_output,
        params['ln2_gamma'],
        params['ln2_beta']
    )
    
    return output, attn_weights

# Test the complete Transformer block
batch_size = 2
seq_len = 10
d_model = 64
num_heads = 8
d_ff = 256  # Feed-forward hidden dimension (usually 4x d_model)

# Initialize
key = random.key(42)
key, params_key, input_key = random.split(key, 3)

block_params = init_transformer_block_params(params_key, d_model, num_heads, d_ff)

# Create input with positional encoding
x = random.normal(input_key, (batch_size, seq_len, d_model))
pe = sinusoidal_positional_encoding(seq_len, d_model)
x = x + pe  # Add positional encoding

# Apply transformer block
output, attn_weights = transformer_block(block_params, x, num_heads)

print(f"Input shape: {x.shape}")
print(f"Output shape: {output.shape}")
print(f"\nTransformer block maintains the input shape!")

def init_classifier_params(key, vocab_size, d_model, num_heads, d_ff, num_classes):
    """
    Initialize a simple Transformer classifier.
    """
    keys = random.split(key, 3)
    
    # Embedding layer
    embedding = random.normal(keys[0], (vocab_size, d_model)) * 0.02
    
    # Transformer block
    block_params = init_transformer_block_params(keys[1], d_model, num_heads, d_ff)
    
    # Classification head
    classifier = {
        'W': random.normal(keys[2], (d_model, num_classes)) * 0.02,
        'b': jnp.zeros(num_classes)
    }
    
    return {
        'embedding': embedding,
        'transformer': block_params,
        'classifier': classifier
    }


def forward(params, x, num_heads):
    """
    Forward pass of the classifier.
    
    Args:
        params: Model parameters
        x: Input token indices of shape (batch_size, seq_len)
        num_heads: Number of attention heads
    
    Returns:
        Logits of shape (batch_size, num_classes)
    """
    batch_size, seq_len = x.shape
    d_model = params['embedding'].shape[1]
    
    # Embed tokens
    embedded = params['embedding'][x]  # (batch, seq_len, d_model)
    
    # Add positional encoding
    pe = sinusoidal_positional_encoding(seq_len, d_model)
    embedded = embedded + pe
    
    # Apply transformer block
    transformed, _ = transformer_block(params['transformer'], embedded, num_heads)
    
    # Global average pooling
    pooled = jnp.mean(transformed, axis=1)  # (batch, d_model)
    
    # Classify
    logits = jnp.matmul(pooled, params['classifier']['W']) + params['classifier']['b']
    
    return logits

# Hyperparameters
vocab_size = 100
d_model = 32
num_heads = 4
d_ff = 128
num_classes = 2
seq_len = 8
batch_size = 32
learning_rate = 0.001
num_epochs = 40

# Initialize model
key = random.key(42)
key, init_key = random.split(key)
params = init_classifier_params(init_key, vocab_size, d_model, num_heads, d_ff, num_classes)

# Create toy dataset: classify if sum of sequence is above/below threshold
def generate_batch(key, batch_size, seq_len, vocab_size):
    """Generate a batch of sequences with labels."""
    x = random.randint(key, (batch_size, seq_len), 0, vocab_size)
    sums = x.sum(axis=1)
    threshold = vocab_size * seq_len / 2
    labels = (sums > threshold).astype(jnp.int32)
    return x, labels

# Loss function
def cross_entropy_loss(params, x, labels, num_heads):
    logits = forward(params, x, num_heads)
    one_hot = jax.nn.one_hot(labels, num_classes)
    log_probs = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(one_hot * log_probs, axis=-1))

# Gradient function
@jit
def update(params, x, labels, learning_rate):
    loss, grads = jax.value_and_grad(cross_entropy_loss)(params, x, labels, num_heads)
    # Simple SGD update
    params = jax.tree.map(lambda p, g: p - learning_rate * g, params, grads)
    return params, loss

# Accuracy function
@jit
def compute_accuracy(params, x, labels):
    logits = forward(params, x, num_heads)
    predictions = jnp.argmax(logits, axis=-1)
    return jnp.mean(predictions == labels)

# Training loop
print("Training Transformer Classifier...")
print("=" * 50)

losses = []
accuracies = []

for epoch in range(num_epochs):
    key, batch_key = random.split(key)
    x_batch, y_batch = generate_batch(batch_key, batch_size, seq_len, vocab_size)
    
    params, loss = update(params, x_batch, y_batch, learning_rate)
    acc = compute_accuracy(params, x_batch, y_batch)
    
    losses.append(float(loss))
    accuracies.append(float(acc))
    
    if (epoch + 1) % 20 == 0:
        print(f"Epoch {epoch + 1:3d} | Loss: {loss:.4f} | Accuracy: {acc:.4f}")

print("=" * 50)
print("Training complete!")
