# Source: https://github.com/Andrewpensoneault/HMC-B-PINN---Jax-tutorial/blob/554cbc04acc2fbdc9ae1e5cbceb419c0fa3606db/Poisson_Jax_Tutorial_HMC.ipynb (Andrew Pensoneault, Bayesian physics-informed neural network trained with Hamiltonian Monte Carlo, a JAX tutorial)
# License: GPL-3.0
# Changed: notebook converted to a script (code cells concatenated in order); matplotlib import and plotting calls dropped (the last cell's prints kept); smaller sizes (n_samples 1000 -> 20, burn_in 1000 -> 20 HMC iterations, L 50 -> 10 leapfrog steps per iteration)
# Ignore lines matching: ^Elapsed time:

# Import Jax Libraries
import jax.numpy as jnp
from jax.lax import fori_loop
from jax.nn import relu, tanh
from jax import grad, jit, vmap, random

## If you want to use 64bit, uncomment, otherwise, it will default to 32bit
#from jax.config import config; config.update("jax_enable_x64", True)

# Import Other Lirbaries
from functools import partial
import numpy as np
import time

@partial(jit, static_argnums=[4,])
def leapfrog_step(p, x_new, g_new, eps, d_post_func):
  """ Leapfrog integrator for the Hamiltonian Dynamics """
  p_half = p - (eps/2.0) * g_new
  x_next = x_new + eps*p_half
  g_next = d_post_func(x_next)
  p_next = p_half - (eps/2.0) * g_next
  return p_next, x_next, g_next

def hmc(params_init, post_func, d_post_func, eps, L, n_samples, burn_in, key, display=False):
  """ HMC with adaptive step size learned during burn-in (acceptance rate ~.6) """
  accept_rate = 0.6
  lookback_window = 10
  x = params_init
  in_dim = len(params_init)
  params_list = [[],]*n_samples
  accept_list = [[],]*(n_samples+burn_in)
  eps_list = np.zeros(lookback_window)
  E = post_func(x)
  dE = d_post_func(x)
  for n in range(n_samples + burn_in):
    key_use, key_use_2, key = random.split(key,3)
    p = random.normal(key_use, shape=(in_dim,1))
    H = E + jnp.sum(p**2)/(2.0) 
    x_new = x; g_new = dE
    #Leapfrog steps
    for _ in range(L):
      p, x_new, g_new = leapfrog_step(p, x_new, g_new, eps, d_post_func)
    E_new = post_func(x_new)
    dE_new = d_post_func(x_new)
    H_new = jnp.sum(p**2)/(2.0) + E_new
    dH = H_new - H
    #Metropolis hastings
    if dH < 0 or random.uniform(key_use_2,shape=(1,)) < jnp.exp(-dH): accept = 1
    else:                                                             accept = 0
    if accept: dE = dE_new; x = x_new; E = E_new
    accept_list[n] = accept
    if n>=burn_in: 
        params_list[n-burn_in] = np.array(x)
        eps = np.exp(np.mean(np.log(eps_list)))
    #If >.6 acceptance rate, increase eps, else decrease acceptance rate, during burnin
    elif n>=lookback_window:
        if np.sum(accept_list[n-(lookback_window-1):n+1])/lookback_window > accept_rate: 
          eps *= 1.01
        else:
          eps /= 1.01
        eps_list[1:] = eps_list[:-1]
        eps_list[0] = eps 
    if display == True:
      print('Log-Posterior:',E,' - eps:',eps)
  params_list = np.array(params_list).squeeze().T
  return params_list, accept_list, eps

@jit
def layer(x, A, b):
  return x@A + b

@partial(jit, static_argnums=[2,3,4,5,6])
def NN(x, params, n_in, n_hidden, n_out, num_layers, activation=tanh):
  """ Neural network function, utilizes flattened parameters vector """
  #Input layers
  n_last = 0
  A = jnp.reshape(params[n_last:n_last+n_in*n_hidden],(n_in,n_hidden))
  n_last = n_last+n_in*n_hidden
  b = jnp.reshape(params[n_last:n_last+n_hidden],(1,n_hidden))
  x = layer(x, A, b)
  x = activation(x)

  #Hidden layers
  for i in range(num_layers-1):
    A = jnp.reshape(params[n_last:n_last+n_hidden**2],(n_hidden,n_hidden))
    n_last = n_last+n_hidden**2
    b = jnp.reshape(params[n_last:n_last+n_hidden],(1,n_hidden))
    x = layer(x, A, b)
    x = activation(x)

  #output layers
  A = jnp.reshape(params[n_last:n_last+n_hidden*n_out],(n_hidden,n_out))
  n_last = n_last+n_hidden*n_out
  b = jnp.reshape(params[n_last:n_last+n_out],(1,n_out))
  x = layer(x, A, b)
  return x

def get_n_params_nn(n_in, n_hidden, n_out, num_layers):
  """ Gets the number of parameters to create for the NN"""
  in_num = n_hidden + n_hidden*n_in
  out_num = n_out + n_out*n_hidden
  hidden_num = (n_hidden + n_hidden**2)
  return in_num + hidden_num*(num_layers-1) + out_num

### True functions ###

def f_func(x, k=0.7):
  #right hand side of the PDE
  lam = 0.01
  term_1 = k*jnp.tanh(jnp.sin(6*x)**3)
  term_2 = -108*lam*jnp.sin(6*x)*(jnp.sin(6*x)**2 - 2*jnp.cos(6*x)**2)
  return term_1 + term_2

def u_func(x):
  #solution function
  return jnp.sin(6*x)**3

def bd_func(x):
  #boundary function
  return u_func(x)

#### Data ####

key_u = random.PRNGKey(0)

# Physical Parameter
k = 0.7

# Number of samples
n_u = 8
n_bd = 2
n_f = 32

# Bounds
lb = -0.7
ub = 0.7

# Locations
x_u_plus_bd = jnp.expand_dims(jnp.linspace(lb, ub, n_u + n_bd),1)

x_u = x_u_plus_bd[1:-1,:]
x_f = jnp.expand_dims(jnp.linspace(lb, ub, n_f),1)
x_bd = x_u_plus_bd[[0,-1],:]

# Data
sig_u_true = 0.1
noise_u = random.normal(key_u,(n_u,1))
u_data = u_func(x_u) + sig_u_true*noise_u  #Noisy Data
bd_data = bd_func(x_bd)                    #Noise-free Data
f_data = f_func(x_f)                       #Noise-free Data
y = jnp.concatenate((u_data, bd_data, f_data))

#Testing dataset
x_test = np.linspace(lb,ub,1000)
u_truth = u_func(x_test)
f_truth = f_func(x_test)

### B-PINN architecture ###

#Number of parameters
n_hidden = 50
n_layers = 2
n_in = 1
n_out = 1
n_nn = get_n_params_nn(n_in, n_hidden, n_out, n_layers)
n_lam = 1
n_params = n_nn + n_lam

# Likelihood hyperparameters
sig_u = 0.1    #Likelihood forward data standard deviation
sig_f = 0.1    #Likelihood residual data standard deviation
sig_bd = 0.1   #Likelihood boundary data standard deviation
R_u = sig_u**2*np.ones(n_u)
R_bd = sig_bd**2*np.ones(n_bd)
R_f = sig_f**2*np.ones(n_f)
R = jnp.concatenate((R_u,R_bd,R_f)) #Likelihood Covariance

# Prior hyperparameters
std_theta = 1.0
std_lambda = 1.0
C_lambda = std_lambda**2*np.ones(n_lam)
C_theta = std_theta**2*np.ones(n_nn)
mu_lambda = jnp.zeros((n_lam,1)) 
mu_theta = jnp.zeros((n_nn,1)) 
C0 = jnp.concatenate((C_lambda,C_theta))   #Prior Covariance
mu = jnp.concatenate((mu_lambda,mu_theta)) #Prior Mean

### Differential Operators ###

@jit
def NN_ew(x, nn_params):
  # Element-wise NN
  x_vec = x.reshape(-1,1)
  u = NN(x_vec, nn_params, n_in, n_hidden, n_out, n_layers)
  return u.reshape()

@jit
def NN_ew_x(x, nn_params):
  # Element-wise NN first derivative
  u_x = grad(NN_ew,0)(x, nn_params)
  return u_x.reshape()

@jit
def NN_ew_xx(x, nn_params):
  # Element-wise NN second derivative
  u_xx = grad(NN_ew_x,0)(x, nn_params)
  return u_xx.reshape()

### PINN Operators ###
# params --> [k, nn_params] 

@jit
def pde(u,u_xx,k):
   # Poisson equation differential operator
   return 0.01*u_xx + k*tanh(u)

@jit
def f_op_ew(x, params):
    # PINN right hand side
    k = params[0]
    nn_params = params[1:]
    u = NN_ew(x, nn_params)
    u_xx = NN_ew_xx(x, nn_params)
    return pde(u, u_xx, k)

@jit
def u_op_ew(x, params):
   # PINN solution  
   nn_params = params[1:]
   return NN_ew(x, nn_params)

@jit 
def bd_op_ew(x, params):
   # PINN boundary
   nn_params = params[1:]
   return NN_ew(x, nn_params)

# Vectorized operators
u_op = lambda x, X: vmap(vmap(u_op_ew,(0, None)),(None,1))(x,X).T
bd_op = lambda x, X: vmap(vmap(bd_op_ew,(0, None)),(None,1))(x,X).T
f_op = lambda x, X:  vmap(vmap(f_op_ew,(0, None)),(None,1))(x,X).T
h_op = jit(lambda X: jnp.concatenate((u_op(x_u,X),bd_op(x_bd,X),f_op(x_f,X))))

### HMC negative log-posterior ###

def nl_prior(X, mu, C0):
    #Negative log-prior
    mult_const = 0.5*len(C0)*np.log(2*np.pi) 
    log_det = 0.5*jnp.sum(jnp.log(C0))
    sum_squared = 0.5*jnp.sum((X-mu)**2/C0.reshape(-1,1))
    return sum_squared + log_det + mult_const

def nl_likelihood(X, y, h, R):
    #Negative log-likelihood
    mult_const = 0.5*len(R)*np.log(2*np.pi)
    log_det = 0.5*jnp.sum(jnp.log(R))
    sum_squared = 0.5*jnp.sum((h(X)-y)**2/R.reshape(-1,1))
    return sum_squared + log_det + mult_const

#HMC log-posterior and likelihood
nl_post = jit(lambda X: nl_likelihood(X, y, h_op, R) + nl_prior(X, mu, C0))
d_nl_post = jit(grad(nl_post,0))

### Training ###

#HMC Hyperparameters
step_size = 1e-2
L = 10
n_samples = 20
burn_in = 20

# HMC - Running
key_hmc, key_X0 = random.split(random.PRNGKey(1))
X_0 = mu
t_0 = time.time()
X_hmc, accept_list, eps = hmc(X_0, nl_post, d_nl_post, step_size, L, n_samples, burn_in, key_hmc, display=False)
t_final = time.time()
print('Elapsed time:',t_final-t_0,'seconds')
u_sims = u_op(x_test.reshape(-1,1), X_hmc) #Generates solutions
f_sims = f_op(x_test.reshape(-1,1), X_hmc) #Generates residual 
k_sims = X_hmc[0,:]                        #Gets parameter k

#Get metrics
u_mean = np.mean(u_sims,axis=1)
u_std = np.std(u_sims,axis=1)
u_err = np.linalg.norm(u_mean - u_truth)/np.linalg.norm(u_truth)

f_mean = np.mean(f_sims,axis=1)
f_std = np.std(f_sims,axis=1)
f_err = np.linalg.norm(f_mean - f_truth)/np.linalg.norm(f_truth)

k_mean = np.mean(k_sims)
k_std = np.std(k_sims)
k_err = np.abs(k - k_mean)/np.abs(k)

print('Final value of Leapfrog step size after Burn-in: ',eps)
print('Total Number of Parameters: ',n_params)
print('k - 1 std confidence interval: ' + str(k_mean) + ' +/- ' + str(k_std))
print('u - mean relative error: ' + str(u_err))
print('f - mean relative error: ' + str(f_err))
print('k - mean relative error: ' + str(k_err))
