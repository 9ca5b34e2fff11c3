"""The part of SciPy the playground has, on the host: scipy.special's expit, logit, erf, erfc,
gamma, gammaln, xlogy, softmax, logsumexp and jv (float32 in, float32 out, as SciPy's ufuncs),
and scipy.stats.norm (pdf, logpdf, cdf, sf, rvs from a Generator). A float64 tail probability is
rounded: SciPy's ndtr is Cephes's, ours the host's erfc, which differ in the last place."""
import numpy as np
import scipy as sp
from scipy import special
from scipy.stats import norm

x = np.array([-3.0, -0.5, 0.0, 0.25, 2.0])
print(sp.special.expit(x), special.expit(x.astype(np.float32)), special.expit(2))
print(special.logit(np.array([0.1, 0.5, 0.9])), special.erf(x), special.erfc(x))
print(special.gamma(np.array([0.5, 1.0, 4.5])), special.gammaln(np.array([0.5, 10.0, 100.0])))
print(special.xlogy(np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 3.0])))
print(special.softmax(x), special.logsumexp(x), special.logsumexp(np.ones((2, 3)), axis=1))
print(norm.pdf(x), norm.logpdf(x, loc=1.0, scale=2.0), norm.cdf(x), round(norm.sf(1.5), 12))
gen = np.random.default_rng(0)
print(norm.rvs(random_state=gen), norm.rvs(loc=2.0, scale=0.5, size=3, random_state=gen))
print(type(special.expit(0.5)).__name__, special.expit(np.float32(0.5)).dtype)

# Bessel's J of integer orders (negative too, and far past x), and of real orders near zero;
# rounded to 12 digits, SciPy's being Cephes's (AMOS's) and ours Miller's recurrence.
z = np.array([0.0, 0.5, 2.0, 7.25, -3.0, 40.0])
print(np.round(special.jv(0, z), 12), np.round(special.jv(np.array([[1], [-3], [12]]), z), 12))
print(np.round(special.jv(1.5, np.array([0.25, 3.0, 11.0])), 12), special.jv(0.5, -1.0))
print(special.jv(1, z.astype(np.float32)).dtype, special.jv(np.int32(1), np.float32(2.0)).dtype)
print(special.jv(2, np.linspace(0, 20, 9).astype(np.float32)))
