# Source: https://github.com/che-shr-cat/JAX-in-Action/blob/343815364f77d5646a78965495e88ef341536bf0/Chapter-4/JAX_in_Action_Chapter_4_Differentiating_in_JAX.ipynb (Grigory Sapunov, JAX in Action, chapter 4: differentiating in JAX)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); %timeit magics dropped; the one cell whose saved output is an error, `p,t = jax.jvp(f2, x, v)`, dropped); matplotlib import and plotting dropped: in the derivatives-plot cell the figure and ax.plot/legend calls replaced by an added print of the first five values of f and of each vmapped derivative; the noisy regression data seeded (np.random.seed(0) added before it)
# Ignore lines matching: ^\d+\.\d+\.\d+

import numpy as np

import jax
import jax.numpy as jnp

print(jax.__version__)

def dist(order, x, y):
  return jnp.power(jnp.sum(jnp.abs(x-y)**order), 1.0/order)

dist_d_x = jax.grad(dist, argnums=1)

dist_d_xy = jax.grad(dist, argnums=(1,2))

print(dist_d_x(1, jnp.array([1.0,1.0,1.0]), jnp.array([2.0,2.0,2.0])))

print(dist_d_xy(1, jnp.array([1.0,1.0,1.0]), jnp.array([2.0,2.0,2.0])))

np.random.seed(0)
x = np.linspace(0, 10*np.pi, num=1000)
e = np.random.normal(scale=10.0, size=x.size)
y = 65.0 + 1.8*x + 40*np.cos(x) + e

xt = jnp.array(x)
yt = jnp.array(y)
learning_rate = 1e-2

model_parameters = {
    'w': jnp.array([1.]),
    'b': jnp.array([1.])
    }

def model(param_dict, x):
    w, b = param_dict['w'], param_dict['b']
    return w * x + b

def loss_fn(model_parameters, x, y):
    prediction = model(model_parameters, x)
    return jnp.mean((prediction-y)**2)

grads_fn = jax.grad(loss_fn)
grads = grads_fn(model_parameters, xt, yt)

print(grads)

model_parameters = jnp.array([1., 1.])

def model(theta, x):
    w, b = theta
    return w * x + b

def loss_fn(model_parameters, x, y):
    prediction = model(model_parameters, x)
    return jnp.mean((prediction-y)**2), prediction

grads_fn = jax.grad(loss_fn, has_aux=True)
grads, preds  = grads_fn(model_parameters, xt, yt)
model_parameters -= learning_rate * grads

print(model_parameters)

print(grads)

print(preds.shape)

model_parameters = jnp.array([1., 1.])

def model(theta, x):
    w, b = theta
    return w * x + b

def loss_fn(model_parameters, x, y):
    prediction = model(model_parameters, x)
    return jnp.mean((prediction-y)**2), prediction

grads_fn = jax.value_and_grad(loss_fn, has_aux=True)
(loss, preds), grads  = grads_fn(model_parameters, xt, yt)
model_parameters -= learning_rate * grads

print(loss)

print(preds.shape)

print(grads)

def f(x, y):
  return x**2 + jax.lax.stop_gradient(y**2)

def f(x, y):
  return x**2 + y**2

print(jax.grad(f, argnums=(0,1))(1.0, 1.0))

def f(x):
    return x**4 + 12*x + 1/x

f_d1 = jax.grad(f)
f_d2 = jax.grad(f_d1)
f_d3 = jax.grad(f_d2)

x = 11.0

print(f_d1(x))
print(f_d2(x))
print(f_d3(x))

f_d3 = jax.grad(jax.grad(jax.grad(f)))

print(f_d3(x))

def f(x):
    return x**3 + 12*x + 7*x*jnp.sin(x)

x = np.linspace(-10, 10, num=500)

print(f(x)[:5])

df = f
for d in range(1,4):
  df = jax.grad(df)
  #ax.plot(x, (df)(x), label=f'#{d} derivative')
  print(jax.vmap(df)(x)[:5])

def f(x):
  return [
      x[0]**2 + x[1]**2 - x[1]*x[2],
      x[0]**2 - x[1]**2 + 3*x[0]*x[2]
  ]

print(jax.jacrev(f)(jnp.array([3.0, 4.0, 5.0])))

print(jax.jacfwd(f)(jnp.array([3.0, 4.0, 5.0])))

def f(x):
  return x[0]**2 - x[1]**2 + 3*x[0]*x[2]

print(jax.hessian(f)(jnp.array([3.0, 4.0, 5.0])))

print(jax.jacfwd(jax.grad(f))(jnp.array([3.0, 4.0, 5.0])))

print(jax.jacfwd(jax.jacrev(f))(jnp.array([3.0, 4.0, 5.0])))

def f(x1,x2):
  return x1*x2 + jnp.sin(x1*x2)

x = (7.0, 2.0)

print(f(*x))

print(jax.grad(f)(*x))

print(jax.grad(f, argnums=(0,1))(*x))

def f2(x):
  return [
      x[0]**2 + x[1]**2 - x[1]*x[2],
      x[0]**2 - x[1]**2 + 3*x[0]*x[2]
  ]

x = jnp.array([3.0, 4.0, 5.0])
v = jnp.array([1.0, 1.0, 1.0])

p,t = jax.jvp(f2, (x,), (v,))

print(p)

print(t)

p,t = jax.jvp(f2, (x,), (jnp.array([1.0, 0.0, 0.0]),))
print(t)

p,t = jax.jvp(f2, (x,), (jnp.array([0.0, 1.0, 0.0]),))
print(t)

p,t = jax.jvp(f2, (x,), (jnp.array([0.0, 0.0, 1.0]),))
print(t)

def f(x1,x2):
  return x1*x2 + jnp.sin(x1*x2)

x = (7.0, 2.0)

p,t = jax.jvp(f, x, (1.0, 0.0))

print(p)

print(t)

def f(x1,x2):
  return x1*x2 + jnp.sin(x1*x2)

x = (7.0, 2.0)

p,vjp_func = jax.vjp(f, *x)

print(p)

print(vjp_func(1.0))

print(vjp_func(2.0))

def f2(x):
  return [
      x[0]**2 + x[1]**2 - x[1]*x[2],
      x[0]**2 - x[1]**2 + 3*x[0]*x[2]
  ]

x = jnp.array([3.0, 4.0, 5.0])

p,vjp_func = jax.vjp(f2, x)

print(p)

print(vjp_func([1.0, 0.0]))

print(vjp_func([0.0, 1.0]))
