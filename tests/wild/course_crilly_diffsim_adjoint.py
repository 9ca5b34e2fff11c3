# Source: https://github.com/aidancrilly/MiniCourse-DifferentiableSimulation/blob/5e0bb7bd00dfc14b4e3d72f40e039197d2a6c277/Solutions_01_ComputationalGraphsAndAdjointMethods.ipynb (Aidan Crilly, Imperial College mini-course on differentiable simulation, 2025: computational graphs and adjoint methods, solutions)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order); the graph-drawing helper cell (pydot, IPython.display, jaxlib.xla_client HLO-to-dot) dropped with its 4 viz_computational_graph(...) calls (one a whole cell); matplotlib plotting calls dropped, the plotted values printed instead (the max difference between dtanh and grad_tanh; each Nt's two adjoint values and the analytic one)

import jax.numpy as jnp
import jax

def tanh(x):
  """
  To be completed
  """
  y = jnp.exp(-2.0*x)
  res = (1-y)/(1+y)
  return res

def dtanh(x):
  """
  Explicit analytic derivative
  """
  res = 1-(tanh(x))**2
  return res

def grad_tanh(x):
  """
  Automatic Derivative of user defined tanh function

  N.B. jax.grad operates on scalar output functions
  we therefore need to add a jax.vmap to compute the
  derivative of every element in input x
  """
  res = jax.vmap(jax.grad(tanh))(x)
  return res

x = jnp.linspace(-1.0,1.0,100)

print(jnp.max(jnp.abs(dtanh(x)-grad_tanh(x))))

def log_mean_tanh(x):
  """
  To be completed
  """
  y = tanh(x)
  res = jnp.log(jnp.mean(y))
  return res

def grad_log_mean_tanh(x):
  """
  To be completed
  """
  res = jax.grad(log_mean_tanh)(x)
  return res

def dydt(t,y,args):
  return -y/args['tau']

def analytic_solution(y0,T,tau):
  return y0*jnp.exp(-T/tau)

def adjoint_analytic_solution(y0,y1,T,tau,loss_fn):
  dLdyT = jax.grad(loss_fn)(y1)
  return T/tau**2*dLdyT*analytic_solution(y0,T,tau)

def forward_pass_explicit_Euler(y0,t0,t1,Nt,tau,loss_fn):
  dt = (t1-t0)/(Nt)
  args = {'tau' : tau}

  def _integrate(i,yi):
    """
    Single time step using explicit Euler differencing

    y_i+1 = y_i + dydt(t_i,y_i)*dt
    """
    t = dt*i
    yip1 = yi+dydt(t,yi,args)*dt
    return yip1

  def _forward_pass():
    """
    Integrate ODE forward using for loop
    """
    y1 = jax.lax.fori_loop(0,Nt,_integrate,y0)
    L = loss_fn(y1)
    return L,y1

  return _forward_pass()

# Use very simple 'loss' function in this example
def identity(x):
  return x

tau = 0.5

t0 = 0.0
t1 = 1.0
Nt = 100

y0 = 1.0

L,y1 = forward_pass_explicit_Euler(y0,t0,t1,Nt,tau,identity)
y1_analytic = analytic_solution(y0,t1-t0,tau)
print(f'Numerical solution: {y1}, and analytic solution: {y1_analytic}')
print(f'Equivalent numerical solution: {y0*(1-(t1-t0)/Nt/tau)**Nt}')

# One can use a lambda function to make some arguments treated as 'static'
tau_fn = lambda x : forward_pass_explicit_Euler(y0,t0,t1,Nt,x,identity)[0]

# Or alternatively, one can specify with static_argnums
# viz_computational_graph(forward_pass_explicit_Euler,(y0,t0,t1,Nt,tau,identity),compiled=False,static_argnums=[3,5])

grad_tau_fn = jax.grad(tau_fn)
tau_adjoint_val = adjoint_analytic_solution(y0,y1,t1-t0,tau,identity)

print(f'Numerical adjoint solution: {grad_tau_fn(tau)}, and analytic adjoint solution: {tau_adjoint_val}')
print(f'Equivalent numerical solution: {y0*(t1-t0)/tau**2*(1-(t1-t0)/Nt/tau)**(Nt-1)}')

def init_cond(loss_fn,yT):
  """

  """
  dLdyT = jax.grad(loss_fn)(yT)
  return jnp.array([dLdyT,0.0])

def adjoint_forcing_term(t,a,args):
  """

  """
  f = jnp.zeros_like(a)
  dfdy = jax.grad(dydt,argnums=1)
  dfdtheta = jax.grad(dydt,argnums=2)
  y = get_y_value(t,args)
  f = f.at[0].set(-a[0]*dfdy(t,y,args))
  f = f.at[1].set(-a[0]*dfdtheta(t,y,args)['tau'])
  return f

def get_y_value(t,args):
  """
  A function to get the y value from the forward solution at time t

  Normally this would be obtained by an interpolation on the forward numerical solution

  We will slightly cheat here for the sake of simplicity and use the analytic result
  """
  return analytic_solution(args['y0'],t,args['tau'])

def backward_pass_explicit_Euler(y1,t0,t1,Nt,tau,loss_fn):
  dt = (t1-t0)/(Nt)
  args = {'tau' : tau, 'y0' : y0}
  a1 = init_cond(loss_fn,y1)
  # s array is (a,t)
  s1 = jnp.append(a1,t1)

  def _integrate(i,si):
    """
    Single time step using explicit Euler differencing
    """
    ai = si[:2]
    ti = si[2]
    aip1 = ai-adjoint_forcing_term(ti,ai,args)*dt
    sip1 = jnp.append(aip1,ti-dt)
    return sip1

  def _backward_pass():
    """
    Integrate ODE forward using for loop
    """
    s0 = jax.lax.fori_loop(0,Nt,_integrate,s1)
    return s0[:2],s0[2]

  return _backward_pass()

# N.B. Nt_adjoint does not need to equal the Nt used for the forward solution for 'optimise-then-discretise' approach
Nt_adjoint = 100

a0,t_end = backward_pass_explicit_Euler(y1,t0,t1,Nt_adjoint,tau,identity)

print(f'Numerical "discretise-then-optimise" adjoint: {grad_tau_fn(tau)}, \nNumerical "optimise-then-discretise" adjoint: {a0[1]}, \nand analytic adjoint solution: {tau_adjoint_val}')

Nts = [10,100,1000,10000]

o2d_adjoint_fn = lambda x,N : backward_pass_explicit_Euler(y1,t0,t1,N,x,identity)[0][1]
d2o_adjoint_fn = lambda x,N : jax.grad(forward_pass_explicit_Euler,argnums=4,has_aux=True)(y0,t0,t1,N,x,identity)[0]

for Nt in Nts:
  print(Nt, o2d_adjoint_fn(tau,Nt), d2o_adjoint_fn(tau,Nt))

print(tau_adjoint_val)
