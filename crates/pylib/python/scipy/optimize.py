"""scipy.optimize on the host: `root` with SciPy's default method, `hybr`, Powell's hybrid
(dog-leg) method as MINPACK's hybrd/hybrj run it: a trust region in variables scaled by the
Jacobian's column norms, the Gauss-Newton step where it fits, else a step towards the Cauchy
point along the steepest descent, the region grown or shrunk by how well the linear model
predicted the reduction of |f|, and convergence when the region is within `xtol` of x.

Unlike MINPACK this evaluates the Jacobian again after each accepted step rather than updating
its QR factors by Broyden's rank-one formula, so it takes other steps (and counts other
evaluations) on the way to the same root: results agree with SciPy's to the tolerance `xtol`,
not to the last digit, and `nfev`/`njev` differ.

`minimize` (BFGS, L-BFGS-B) and `fmin_l_bfgs_b` follow; their docstrings say how they
differ from SciPy's."""

import math

import numpy as np


class OptimizeResult:
    """What a solver returns: its fields as attributes and as keys, as SciPy's dict subclass."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __getitem__(self, key):
        return self.__dict__[key]

    def __contains__(self, key):
        return key in self.__dict__

    def keys(self):
        return self.__dict__.keys()

    def get(self, key, default=None):
        return self.__dict__.get(key, default)

    def __setitem__(self, key, value):
        self.__dict__[key] = value

    def __iter__(self):
        return iter(self.__dict__)

    def __len__(self):
        return len(self.__dict__)

    def items(self):
        return self.__dict__.items()

    def values(self):
        return self.__dict__.values()

    def __repr__(self):
        # SciPy's order: these keys first, the rest as they came.
        order = ['message', 'success', 'status', 'fun', 'funl', 'x', 'xl', 'col_ind', 'nit', 'lower', 'upper',
                 'eqlin', 'ineqlin', 'converged', 'flag', 'function_calls', 'iterations', 'root']
        keys = list(self.__dict__)
        keys.sort(key=lambda k: order.index(k.lower()) if k.lower() in order else len(order))
        width = max(len(k) for k in self.__dict__)
        lines = []
        for key in keys:
            value = self.__dict__[key]
            text = str(value).replace("\n", "\n" + " " * (width + 3))
            lines.append(f"{key.rjust(width + 1)}: {text}")
        return "\n".join(lines)


_MESSAGES = {
    1: "The solution converged.",
    2: "The number of calls to function has reached maxfev = {maxfev}.",
    3: "xtol={xtol:f} is too small, no further improvement in the approximate\n  solution is possible.",
    4: "The iteration is not making good progress, as measured by the \n  improvement from the last five Jacobian evaluations.",
    5: "The iteration is not making good progress, as measured by the \n  improvement from the last ten iterations.",
}


def _gauss_newton(jac, f):
    """The step solving J p = -f through J's QR factors, as MINPACK's dogleg solves it: a zero
    on R's diagonal is taken as eps times the largest entry of its column (eps where all are
    zero), so a direction the Jacobian cannot see still gets a (long) component."""
    q, r = np.linalg.qr(jac)
    rhs = -(q.T @ f)
    n = rhs.shape[0]
    p = np.zeros(n)
    eps = np.finfo(float).eps
    for j in range(n - 1, -1, -1):
        pivot = r[j, j]
        if pivot == 0:
            pivot = eps * np.max(np.abs(r[: j + 1, j])) or eps
        p[j] = (rhs[j] - r[j, j + 1:] @ p[j + 1:]) / pivot
    return p


def _dogleg(jac, f, diag, delta):
    """The dog-leg step in the trust region of radius `delta` (in variables scaled by `diag`)."""
    newton = _gauss_newton(jac, f)
    if np.linalg.norm(diag * newton) <= delta:
        return newton
    # The gradient of |f|^2 / 2 in scaled variables, and the Cauchy point along it.
    grad = (jac.T @ f) / diag
    gnorm = np.linalg.norm(grad)
    if gnorm == 0:
        return newton * (delta / np.linalg.norm(diag * newton))
    direction = grad / gnorm
    curvature = np.linalg.norm(jac @ (direction / diag))
    along = gnorm / curvature**2 if curvature > 0 else delta
    if along >= delta:
        return -delta * direction / diag
    cauchy = -along * direction
    towards = diag * newton - cauchy
    # |cauchy + t * towards| = delta for t in (0, 1].
    a, b = towards @ towards, 2 * (cauchy @ towards)
    c = cauchy @ cauchy - delta**2
    t = (-b + math.sqrt(max(b * b - 4 * a * c, 0.0))) / (2 * a)
    return (cauchy + t * towards) / diag


def _forward_differences(fun, x, f):
    """The Jacobian by forward differences, each step sqrt(eps) times max(1, |x_j|), as SciPy's
    approx_derivative takes it (MINPACK's fdjac1 takes sqrt(eps) |x_j|, which only works with
    the Broyden updates: recomputed at an x_j of 1e-16 it differences noise)."""
    step = math.sqrt(np.finfo(float).eps)
    columns = []
    for j in range(x.size):
        h = step * max(abs(x[j]), 1.0)
        moved = x.copy()
        moved[j] += h
        columns.append((fun(moved) - f) / h)
    return np.stack(columns, axis=1)


def root(fun, x0, args=(), method="hybr", jac=None, tol=None, callback=None, options=None):
    if not isinstance(method, str) or method.lower() != "hybr":
        raise NotImplementedError(
            f"scipy.optimize.root with method={method!r} is not supported by the playground yet (method='hybr' is)")
    if callback is not None:
        raise NotImplementedError("scipy.optimize.root's callback is not supported by the playground yet")
    options = dict(options or {})
    # As SciPy's: the function sees x flattened, and the root comes back so.
    x = np.array(x0, dtype=float).ravel()
    n = x.size
    shape = (n,)
    xtol = options.get("xtol", 1.49012e-08) if tol is None else tol
    maxfev = options.get("maxfev", 0) or (100 if jac is not None else 200) * (n + 1)
    factor = options.get("factor", 100)

    with_jac = jac is True
    nfev, njev = 0, 0

    def evaluate(x):
        out = fun(x.reshape(shape), *args)
        if with_jac:
            out = out[0]
        return np.asarray(out, dtype=float).ravel()

    def jacobian(x, f):
        nonlocal nfev, njev
        if with_jac:
            njev += 1
            return np.asarray(fun(x.reshape(shape), *args)[1], dtype=float).reshape(n, n)
        if callable(jac):
            njev += 1
            return np.asarray(jac(x.reshape(shape), *args), dtype=float).reshape(n, n)
        nfev += n
        return _forward_differences(evaluate, x, f)

    f = evaluate(x)
    nfev += 1
    if f.size != n:
        raise TypeError(f"fsolve: there is a mismatch between the input and output shape of the 'func' argument "
                        f"'{getattr(fun, '__name__', 'fun')}'.Shape should be ({n},) but it is ({f.size},).")
    fnorm = np.linalg.norm(f)
    epsmch = np.finfo(float).eps
    status, iteration = 0, 1
    successes = failures = slow = slow_jacobian = 0
    diag = delta = xnorm = None
    while status == 0:
        # The outer loop: the Jacobian evaluated.
        J = jacobian(x, f)
        norms = np.linalg.norm(J, axis=0)
        if diag is None:
            diag = np.where(norms == 0, 1.0, norms)
            xnorm = np.linalg.norm(diag * x)
            delta = factor * xnorm or factor
        else:
            diag = np.maximum(diag, norms)
        evaluated = True
        while status == 0:
            # The inner loop: steps with the Jacobian updated by Broyden's formula.
            step = _dogleg(J, f, diag, delta)
            pnorm = np.linalg.norm(diag * step)
            if iteration == 1:
                delta = min(delta, pnorm)
            moved = x + step
            f_moved = evaluate(moved)
            nfev += 1
            fnorm_moved = np.linalg.norm(f_moved)
            actual = 1 - (fnorm_moved / fnorm) ** 2 if fnorm_moved < fnorm else -1.0
            linear = f + J @ step
            predicted_norm = np.linalg.norm(linear)
            predicted = 1 - (predicted_norm / fnorm) ** 2 if predicted_norm < fnorm else 0.0
            ratio = actual / predicted if predicted > 0 else 0.0
            if ratio < 0.1:
                successes, failures = 0, failures + 1
                delta *= 0.5
            else:
                successes, failures = successes + 1, 0
                if ratio >= 0.5 or successes > 1:
                    delta = max(delta, pnorm / 0.5)
                if abs(ratio - 1) <= 0.1:
                    delta = pnorm / 0.5
            if ratio >= 1e-4:
                x, f, fnorm = moved, f_moved, fnorm_moved
                xnorm = np.linalg.norm(diag * x)
                iteration += 1
            slow = 0 if actual >= 0.001 else slow + 1
            if evaluated:
                slow_jacobian += 1
            if actual >= 0.1:
                slow_jacobian = 0
            if delta <= xtol * xnorm or fnorm == 0:
                status = 1
            elif nfev >= maxfev:
                status = 2
            elif 0.1 * max(0.1 * delta, pnorm) <= epsmch * xnorm:
                status = 3
            elif slow_jacobian == 5:
                status = 4
            elif slow == 10:
                status = 5
            if status or failures == 2:
                break
            # Broyden's rank-one update, in the variables scaled by `diag`.
            J = J + np.outer(f_moved - linear, diag * diag * step) / pnorm**2
            evaluated = False
    message = _MESSAGES[status].format(maxfev=maxfev, xtol=xtol)
    fields = dict(x=x.reshape(shape), success=status == 1, status=status, message=message, fun=f, nfev=nfev)
    if jac is not None:
        fields["njev"] = njev
    fields["method"] = "hybr"
    return OptimizeResult(**fields)


def _scalar_search_wolfe(phi, derphi, phi0, old_phi0, derphi0, c1=1e-4, c2=0.9, amax=1e100, maxiter=10):
    """A step length meeting the strong Wolfe conditions (Nocedal and Wright's algorithm 3.5,
    with their `zoom`, 3.6, interpolating cubically, else quadratically, else bisecting), as
    SciPy's line_search_wolfe2. Returns (alpha, phi(alpha), phi0) or alpha None on failure."""
    alpha0 = 0.0
    alpha1 = 1.0
    if old_phi0 is not None and derphi0 != 0:
        alpha1 = min(1.0, 1.01 * 2 * (phi0 - old_phi0) / derphi0)
        if alpha1 < 0:
            alpha1 = 1.0
    alpha1 = min(alpha1, amax)
    phi_a1 = phi(alpha1)
    phi_a0, derphi_a0 = phi0, derphi0
    for i in range(maxiter):
        if alpha1 == 0:
            break
        if phi_a1 > phi0 + c1 * alpha1 * derphi0 or (phi_a1 >= phi_a0 and i > 0):
            return _zoom(alpha0, alpha1, phi_a0, phi_a1, derphi_a0, phi, derphi, phi0, derphi0, c1, c2)
        derphi_a1 = derphi(alpha1)
        if abs(derphi_a1) <= -c2 * derphi0:
            return alpha1, phi_a1
        if derphi_a1 >= 0:
            return _zoom(alpha1, alpha0, phi_a1, phi_a0, derphi_a1, phi, derphi, phi0, derphi0, c1, c2)
        alpha2 = min(2 * alpha1, amax)
        alpha0, alpha1 = alpha1, alpha2
        phi_a0, phi_a1 = phi_a1, phi(alpha1)
        derphi_a0 = derphi_a1
    return None, None


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimiser of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    try:
        C = fpa
        db, dc = b - a, c - a
        denom = (db * dc) ** 2 * (db - dc)
        d1 = np.array([[dc**2, -db**2], [-dc**3, db**3]])
        A, B = d1 @ np.array([fb - fa - C * db, fc - fa - C * dc]) / denom
        radical = B * B - 3 * A * C
        xmin = a + (-B + math.sqrt(radical)) / (3 * A)
    except (ArithmeticError, ValueError):
        return None
    return xmin if np.isfinite(xmin) else None


def _quad_min(a, fa, fpa, b, fb):
    """The minimiser of the parabola through (a, fa) with slope fpa and (b, fb)."""
    try:
        db = b - a
        B = (fb - fa - fpa * db) / (db * db)
        xmin = a - fpa / (2.0 * B)
    except ArithmeticError:
        return None
    return xmin if np.isfinite(xmin) else None


def _zoom(a_lo, a_hi, phi_lo, phi_hi, derphi_lo, phi, derphi, phi0, derphi0, c1, c2):
    phi_rec, a_rec = phi0, 0
    for i in range(10):
        lo, hi = min(a_lo, a_hi), max(a_lo, a_hi)
        dalpha = a_hi - a_lo
        a_j = None
        if i > 0:
            a_j = _cubic_min(a_lo, phi_lo, derphi_lo, a_hi, phi_hi, a_rec, phi_rec)
            if a_j is not None and (a_j > hi - 0.2 * abs(dalpha) or a_j < lo + 0.2 * abs(dalpha)):
                a_j = None
        if a_j is None:
            a_j = _quad_min(a_lo, phi_lo, derphi_lo, a_hi, phi_hi)
            if a_j is None or a_j > hi - 0.1 * abs(dalpha) or a_j < lo + 0.1 * abs(dalpha):
                a_j = a_lo + 0.5 * dalpha
        phi_aj = phi(a_j)
        if phi_aj > phi0 + c1 * a_j * derphi0 or phi_aj >= phi_lo:
            phi_rec, a_rec = phi_hi, a_hi
            a_hi, phi_hi = a_j, phi_aj
        else:
            derphi_aj = derphi(a_j)
            if abs(derphi_aj) <= -c2 * derphi0:
                return a_j, phi_aj
            if derphi_aj * (a_hi - a_lo) >= 0:
                phi_rec, a_rec = phi_hi, a_hi
                a_hi, phi_hi = a_lo, phi_lo
            else:
                phi_rec, a_rec = phi_lo, a_lo
            a_lo, phi_lo, derphi_lo = a_j, phi_aj, derphi_aj
    return None, None


def minimize(fun, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, constraints=(),
             tol=None, callback=None, options=None):
    """`method="BFGS"` (SciPy's default without bounds or constraints): quasi-Newton steps with
    the inverse Hessian updated by BFGS's formula and a strong-Wolfe line search, until the
    gradient's largest component is below `gtol`. The line search is SciPy's fallback one
    (`line_search_wolfe2`); SciPy tries MINPACK's dcsrch first, so the steps, and `nit`/`nfev`,
    differ from SciPy's, and the minimum agrees to the tolerance, not to the last digit.

    `method="L-BFGS-B"` (SciPy's default when `bounds` are given): see `fmin_l_bfgs_b`; its
    options `maxcor`, `ftol`, `gtol`, `eps`, `maxfun`, `maxiter`, `maxls`,
    `finite_diff_rel_step`; `bounds` as (lo, hi) pairs (None for no bound) or `Bounds`.
    Without `jac`, forward differences with the absolute step `eps`; `jac='2-point'` or
    `'3-point'` take SciPy's relative step."""
    if method is None:
        if constraints:
            raise NotImplementedError(
                "scipy.optimize.minimize with constraints (SciPy's SLSQP) is not supported by the playground yet")
        method = "BFGS" if bounds is None else "L-BFGS-B"
    if isinstance(method, str) and method.lower() == "l-bfgs-b":
        return _minimize_with_lbfgsb(fun, x0, args, jac, hess, hessp, bounds, constraints, tol, callback, options)
    name = method
    if not isinstance(name, str) or name.upper() != "BFGS":
        raise NotImplementedError(
            f"scipy.optimize.minimize with method={method!r} is not supported by the playground yet "
            "(methods 'BFGS' and 'L-BFGS-B' are)")
    if bounds is not None or constraints:
        raise NotImplementedError("scipy.optimize.minimize with bounds or constraints is not supported by the playground yet")
    if callback is not None:
        raise NotImplementedError("scipy.optimize.minimize's callback is not supported by the playground yet")
    options = dict(options or {})
    gtol = options.get("gtol", 1e-5 if tol is None else tol)
    shape = np.shape(x0)
    x = np.array(x0, dtype=float).ravel()
    n = x.size
    maxiter = options.get("maxiter", None) or 200 * n
    nfev = njev = 0

    def f(x):
        nonlocal nfev
        nfev += 1
        out = fun(x.reshape(shape), *args)
        return float(np.asarray(out[0] if jac is True else out))

    def grad(x):
        nonlocal njev, nfev
        if jac is True:
            njev += 1
            return np.asarray(fun(x.reshape(shape), *args)[1], dtype=float).ravel()
        if callable(jac):
            njev += 1
            return np.asarray(jac(x.reshape(shape), *args), dtype=float).ravel()
        # Forward differences, as SciPy's approx_derivative with its '2-point' scheme.
        f0 = f(x)
        step = math.sqrt(np.finfo(float).eps)
        g = np.zeros(n)
        for j in range(n):
            h = step * (1.0 if x[j] >= 0 else -1.0) * max(1.0, abs(x[j]))
            moved = x.copy()
            moved[j] += h
            g[j] = (f(moved) - f0) / (moved[j] - x[j])
        return g

    fx = f(x)
    g = grad(x)
    H = np.eye(n)
    old_old = fx + np.linalg.norm(g) / 2
    k, warnflag = 0, 0
    gnorm = np.max(np.abs(g))
    while gnorm > gtol and k < maxiter:
        p = -H @ g
        derphi0 = g @ p
        cache = {}

        def phi(alpha):
            return f(x + alpha * p)

        def derphi(alpha):
            cache[alpha] = grad(x + alpha * p)
            return cache[alpha] @ p

        alpha, f_new = _scalar_search_wolfe(phi, derphi, fx, old_old, derphi0)
        if alpha is None:
            warnflag = 2
            break
        step = alpha * p
        x = x + step
        g_new = cache[alpha] if alpha in cache else grad(x)
        y = g_new - g
        g = g_new
        old_old, fx = fx, f_new
        k += 1
        gnorm = np.max(np.abs(g))
        if gnorm <= gtol:
            break
        if not np.isfinite(fx):
            warnflag = 2
            break
        sy = y @ step
        rho = 1000.0 if sy == 0 else 1.0 / sy
        A1 = np.eye(n) - rho * np.outer(step, y)
        A2 = np.eye(n) - rho * np.outer(y, step)
        H = A1 @ (H @ A2) + rho * np.outer(step, step)
    if warnflag == 0 and k >= maxiter:
        warnflag = 1
    message = {
        0: "Optimization terminated successfully.",
        1: "Maximum number of iterations has been exceeded.",
        2: "Desired error not necessarily achieved due to precision loss.",
    }[warnflag]
    return OptimizeResult(message=message, success=warnflag == 0, status=warnflag, fun=fx, x=x.reshape(shape), nit=k,
                          jac=g, hess_inv=H, nfev=nfev, njev=njev)


# ---------------------------------------------------------------------------------------------
# L-BFGS-B


class OptimizeWarning(UserWarning):
    pass


class _NoValueType:
    """The default of the deprecated `iprint` and `disp`: passing either warns, as SciPy's."""

    def __repr__(self):
        return "<no value>"


_NoValue = _NoValueType()

_EPSMCH = 2.220446049250313e-16

# The task codes of SciPy's lbfgsb.c and the words `_lbfgsb_py.py` spells them with.
_START, _NEW_X, _RESTART, _FG, _CONVERGENCE, _STOP, _WARNING, _ERROR, _ABNORMAL = range(9)
_STATUS_WORDS = {0: "START", 1: "NEW_X", 2: "RESTART", 3: "FG", 4: "CONVERGENCE", 5: "STOP", 6: "WARNING",
                 7: "ERROR", 8: "ABNORMAL"}
_TASK_WORDS = {
    0: "", 301: "", 302: "",
    401: "NORM OF PROJECTED GRADIENT <= PGTOL",
    402: "RELATIVE REDUCTION OF F <= FACTR*EPSMCH",
    501: "CPU EXCEEDING THE TIME LIMIT",
    502: "TOTAL NO. OF F,G EVALUATIONS EXCEEDS LIMIT",
    503: "PROJECTED GRADIENT IS SUFFICIENTLY SMALL",
    504: "TOTAL NO. OF ITERATIONS REACHED LIMIT",
    505: "CALLBACK REQUESTED HALT",
    601: "ROUNDING ERRORS PREVENT PROGRESS",
    602: "STP = STPMAX",
    603: "STP = STPMIN",
    604: "XTOL TEST SATISFIED",
    701: "NO FEASIBLE SOLUTION",
    702: "FACTR < 0",
    703: "FTOL < 0",
    704: "GTOL < 0",
    705: "XTOL < 0",
    706: "STP < STPMIN",
    707: "STP > STPMAX",
    708: "STPMIN < 0",
    709: "STPMAX < STPMIN",
    710: "INITIAL G >= 0",
    711: "M <= 0",
    712: "N <= 0",
    713: "INVALID NBD",
}


# lbfgsb.c's routines over NumPy: the loops over variables and over the stored corrections are
# array operations here (the interpreter counts steps), in the C code's order of operations
# except within the sums. Matrices are 2-D arrays indexed as lbfgsb.c's column-major a[i + lda*j]
# is a[i, j]; only the triangles lbfgsb.c reads are kept meaningful.

def _div(a, b):
    """a / b as C divides: infinite or NaN where Python would raise."""
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1.0, b) > 0) else -math.inf
    return a / b


def _sqrt(a):
    return math.sqrt(a) if a >= 0.0 else math.nan


# The playground's np.linalg factors at most 64 x 64 matrices (step by step, but without
# counting interpreter steps); past that the loops below do it.
_LINALG_SIDE = 64


def _potrf(a):
    """The Cholesky factor U (A = U'U) of a square array's upper triangle, as LAPACK's dpotrf:
    (U, 0), or (_, nonzero) when A is not positive definite."""
    k = a.shape[0]
    upper = np.triu(a)
    if k == 0:
        return upper, 0
    if k > _LINALG_SIDE:
        return _potf2(upper)
    try:
        factor = np.linalg.cholesky(upper + np.triu(a, 1).T).T
    except np.linalg.LinAlgError:
        return upper, 1
    if not np.all(np.isfinite(factor)) or not np.all(np.diag(factor) > 0.0):
        return upper, 1
    return factor, 0


def _potf2(u):
    """LAPACK's unblocked dpotf2 on an upper triangle: (U, 0) or (_, j + 1)."""
    k = u.shape[0]
    for j in range(k):
        ajj = float(u[j, j] - u[:j, j] @ u[:j, j])
        if not ajj > 0.0:
            return u, j + 1
        ajj = math.sqrt(ajj)
        u[j, j] = ajj
        if j + 1 < k:
            u[j, j + 1:] = (u[j, j + 1:] - u[:j, j + 1:].T @ u[:j, j]) * (1.0 / ajj)
    return u, 0


def _trs(u, b, trans):
    """Solves U'X = B (`trans`) or UX = B for U upper triangular, B a vector or a matrix of
    columns, as LAPACK's dtrtrs: (X, 0), or (_, j + 1) when U's j-th diagonal entry is zero."""
    k = u.shape[0]
    if k == 0:
        return np.array(b, dtype=np.float64), 0
    zero = np.nonzero(np.diag(u) == 0.0)[0]
    if zero.size:
        return b, int(zero[0]) + 1
    u = np.triu(u)
    if k <= _LINALG_SIDE:
        return np.linalg.solve(u.T if trans else u, b), 0
    x = np.array(b, dtype=np.float64)
    if trans:
        for i in range(k):
            x[i] = (x[i] - u[:i, i] @ x[:i]) / u[i, i]
    else:
        for i in range(k - 1, -1, -1):
            x[i] = (x[i] - u[i, i + 1:] @ x[i + 1:]) / u[i, i]
    return x, 0


def _bmv(sy, wt, col, v):
    """The product of the 2col x 2col middle matrix of the compact L-BFGS formula and v (bmv):
    (p, info)."""
    if col == 0:
        return np.zeros(0), 0
    diag = np.diag(sy)[:col]
    lower = np.tril(sy[:col, :col], -1)
    p2, info = _trs(wt, v[col:] + lower @ (v[:col] / diag), True)
    if info:
        return p2, info
    p2, info = _trs(wt, p2, False)
    if info:
        return p2, info
    root = np.sqrt(diag)
    p1 = -(v[:col] / root) / root + (lower.T @ p2) / diag
    return np.concatenate([p1, p2]), 0


def _hpsolb(n, t, iorder, iheap):
    """Moves the least of t[0..n] to t[n], the rest kept as a heap (heapsort's step)."""
    if iheap == 0:
        for k in range(2, n + 2):
            ddum = t[k - 1]
            indxin = iorder[k - 1]
            i = k
            while i > 1:
                j = i // 2
                if ddum < t[j - 1]:
                    t[i - 1] = t[j - 1]
                    iorder[i - 1] = iorder[j - 1]
                    i = j
                else:
                    break
            t[i - 1] = ddum
            iorder[i - 1] = indxin
    if n > 0:
        i = 1
        out = t[0]
        indxout = iorder[0]
        ddum = t[n]
        indxin = iorder[n]
        while True:
            j = i + i
            if j > n:
                break
            if t[j] < t[j - 1]:
                j += 1
            if t[j - 1] < ddum:
                t[i - 1] = t[j - 1]
                iorder[i - 1] = iorder[j - 1]
                i = j
            else:
                break
        t[i - 1] = ddum
        iorder[i - 1] = indxin
        t[n] = out
        iorder[n] = indxout


def _projgr(l, u, nbd, x, g):
    """The infinity norm of the projected gradient (NaN when the gradient has one)."""
    if g.size == 0:
        return 0.0
    if np.any(np.isnan(g)):
        return math.nan
    negative = g < 0.0
    gi = np.where(negative & (nbd >= 2), np.maximum(x - u, g), g)
    gi = np.where(~negative & (nbd != 0) & (nbd <= 2), np.minimum(x - l, gi), gi)
    return float(np.max(np.abs(gi)))


def _cauchy(x, l, u, nbd, g, iwhere, wy, ws, sy, wt, theta, col, sbgnrm):
    """The generalized Cauchy point: the first local minimizer of the quadratic model along the
    projected steepest descent path, found breakpoint by breakpoint (in heapsort's order, as
    lbfgsb.c). `wy`, `ws` are the stored corrections, oldest first. Returns (info, xcp, c) with
    c = W'(xcp - x); `iwhere` is updated in place."""
    if sbgnrm <= 0.0:
        return 0, x.copy(), np.zeros(2 * col)
    neggi = -g
    bounded = (iwhere != 3) & (iwhere != -1)
    tl = x - l
    tu = u - x
    xlower = (nbd <= 2) & (tl <= 0.0)
    xupper = (nbd >= 2) & (tu <= 0.0)
    status = np.where(xlower, np.where(neggi <= 0.0, 1, 0),
                      np.where(xupper, np.where(neggi >= 0.0, 2, 0), np.where(np.abs(neggi) <= 0.0, -3, 0)))
    iwhere[:] = np.where(bounded, status, iwhere)
    moving = (iwhere == 0) | (iwhere == -1)
    d = np.where(moving, neggi, 0.0)
    f1 = -float(d @ d)
    p = np.concatenate([wy @ d, theta * (ws @ d)])
    to_lower = moving & (nbd <= 2) & (nbd != 0) & (neggi < 0.0)
    to_upper = moving & ~to_lower & (nbd >= 2) & (neggi > 0.0)
    unbounded = moving & ~to_lower & ~to_upper
    breaks = np.nonzero(to_lower | to_upper)[0]
    nbreak = breaks.size - 1
    bnded = not np.any(unbounded & (np.abs(neggi) > 0.0))
    xcp = x.copy()
    c = np.zeros(2 * col)
    if nbreak == -1 and not np.any(unbounded):
        return 0, xcp, c
    t = []
    if nbreak >= 0:
        t = np.where(to_lower, tl, tu)[breaks] / np.abs(neggi[breaks])
        t = t.tolist()
        ibkmin = int(np.argmin(np.array(t)))
        bkmin = t[ibkmin]
    iorder = breaks.tolist()
    f2 = -theta * f1
    f2_org = f2
    if col > 0:
        v, info = _bmv(sy, wt, col, p)
        if info:
            return info, xcp, c
        f2 = f2 - float(v @ p)
    dtm = _div(-f1, f2)
    tsum = 0.0
    nleft = nbreak
    it = 0
    tj = 0.0
    while nbreak > -1:
        tj0 = tj
        if it == 0:
            tj = bkmin
            ibp = iorder[ibkmin]
        else:
            if it == 1 and ibkmin != nbreak:
                t[ibkmin] = t[nbreak]
                iorder[ibkmin] = iorder[nbreak]
            _hpsolb(nleft, t, iorder, it - 1)
            tj = t[nleft]
            ibp = iorder[nleft]
        dt = tj - tj0
        if dtm < dt:
            # The minimizer is within this interval.
            break
        tsum = tsum + dt
        nleft -= 1
        it += 1
        dibp = float(d[ibp])
        d[ibp] = 0.0
        if dibp > 0.0:
            zibp = float(u[ibp] - x[ibp])
            xcp[ibp] = u[ibp]
            iwhere[ibp] = 2
        else:
            zibp = float(l[ibp] - x[ibp])
            xcp[ibp] = l[ibp]
            iwhere[ibp] = 1
        dibp2 = dibp * dibp
        f1 = f1 + dt * f2 + dibp2 - theta * dibp * zibp
        f2 = f2 - theta * dibp2
        if col > 0:
            c = c + dt * p
            wbp = np.concatenate([wy[:, ibp], theta * ws[:, ibp]])
            v, info = _bmv(sy, wt, col, wbp)
            if info:
                return info, xcp, c
            wmc = float(c @ v)
            wmp = float(p @ v)
            wmw = float(wbp @ v)
            p = p - dibp * wbp
            f1 = f1 + dibp * wmc
            f2 = f2 + dibp * 2.0 * wmp - dibp2 * wmw
        f2 = max(_EPSMCH * f2_org, f2)
        if nleft >= 0:
            dtm = _div(-f1, f2)
        elif bnded:
            dtm = 0.0
            break
        else:
            dtm = _div(-f1, f2)
            break
    if dtm <= 0.0:
        dtm = 0.0
    tsum = tsum + dtm
    return 0, xcp + tsum * d, c + dtm * p


def _freev(free, iwhere, updatd, cnstnd, it):
    """The free variables at the Cauchy point (the rest are held at a bound) and those that
    entered and left the free set since the last iteration: (free, entering, leaving, wrk)."""
    none = np.zeros(0, dtype=int)
    entering = leaving = none
    if it > 0 and cnstnd:
        was_free = np.zeros(iwhere.size, dtype=bool)
        if free.size:
            was_free[free] = True
        leaving = np.nonzero(was_free & (iwhere > 0))[0]
        entering = np.nonzero(~was_free & (iwhere <= 0))[0]
    wrk = leaving.size > 0 or entering.size > 0 or updatd
    return np.nonzero(iwhere <= 0)[0], entering, leaving, wrk


def _formk(free, entering, leaving, iupdat, updatd, wn1, m, wy, ws, sy, theta, col):
    """The LEL' factors of K = [-D - Y'ZZ'Y/theta, L_a' - R_z'; L_a - R_z, theta S'AA'S] as an
    upper triangular 2col x 2col array; wn1 keeps the inner products of the last call and is
    brought up to date for the variables that entered and left the free set (formk).
    Returns (wn, info): info 0, -1 or -2."""
    if updatd:
        is_free = np.zeros(wy.shape[1], dtype=bool)
        is_free[free] = True
        active = np.nonzero(~is_free)[0]
        if iupdat > m:
            # Shift the old part of wn1.
            wn1[:m - 1, :m - 1] = wn1[1:m, 1:m].copy()
            wn1[m:2 * m - 1, m:2 * m - 1] = wn1[m + 1:2 * m, m + 1:2 * m].copy()
            wn1[m:2 * m - 1, :m - 1] = wn1[m + 1:2 * m, 1:m].copy()
        # The new rows of blocks (1,1), (2,1) and (2,2), then the new column of block (2,1).
        last = col - 1
        wyf, wsf = wy[:, free], ws[:, free]
        wya, wsa = wy[:, active], ws[:, active]
        wn1[last, :col] = wyf @ wyf[last]
        wn1[m + last, m:m + col] = wsa @ wsa[last]
        wn1[m + last, :col] = wya @ wsa[last]
        wn1[m:m + col, last] = wsf @ wyf[last]
        upcl = col - 1
    else:
        upcl = col
    # The old parts of the blocks, for the variables that changed sets.
    if upcl > 0 and (entering.size > 0 or leaving.size > 0):
        wye, wse = wy[:upcl][:, entering], ws[:upcl][:, entering]
        wyl, wsl = wy[:upcl][:, leaving], ws[:upcl][:, leaving]
        wn1[:upcl, :upcl] = wn1[:upcl, :upcl] + wye @ wye.T - wyl @ wyl.T
        wn1[m:m + upcl, m:m + upcl] = wn1[m:m + upcl, m:m + upcl] - wse @ wse.T + wsl @ wsl.T
        entered, left = wse @ wye.T, wsl @ wyl.T
        block = wn1[m:m + upcl, :upcl]
        upper = np.triu(np.ones((upcl, upcl), dtype=bool))
        wn1[m:m + upcl, :upcl] = np.where(upper, block + entered - left, block - entered + left)
    # The upper triangle of WN = [D + Y'ZZ'Y/theta, -L_a' + R_z'; -L_a + R_z, S'AA'S theta].
    col2 = 2 * col
    wn = np.zeros((col2, col2))
    wn[:col, :col] = wn1[:col, :col].T / theta
    wn[col:, col:] = wn1[m:m + col, m:m + col].T * theta
    cross = wn1[m:m + col, :col].T
    wn[:col, col:] = np.where(np.triu(np.ones((col, col), dtype=bool), 1), -cross, cross)
    wn[:col, :col] = wn[:col, :col] + np.diag(np.diag(sy)[:col])
    top, info = _potrf(wn[:col, :col])
    if info:
        return wn, -1
    wn[:col, :col] = top
    right, _ = _trs(top, wn[:col, col:], True)
    wn[:col, col:] = right
    bottom, info = _potrf(wn[col:, col:] + right.T @ right)
    if info:
        return wn, -2
    wn[col:, col:] = bottom
    return wn, 0


def _formt(sy, ss, col, theta):
    """The Cholesky factor J' of T = theta S'S + L D^-1 L' (formt): (J', info)."""
    lower = np.tril(sy[:col, :col], -1)
    t = theta * ss[:col, :col] + (lower / np.diag(sy)[:col]) @ lower.T
    factor, info = _potrf(t)
    return factor, (-3 if info else 0)


def _cmprlb(x, g, wy, ws, sy, wt, z, c, free, theta, col, cnstnd):
    """The reduced gradient r = -Z'B(xcp - x) - Z'g at the Cauchy point z, over the free
    variables (cmprlb): (r, info)."""
    if not cnstnd and col > 0:
        return -g, 0
    r = -theta * (z[free] - x[free]) - g[free]
    wa, info = _bmv(sy, wt, col, c)
    if info:
        return r, -8
    return r + wy[:, free].T @ wa[:col] + ws[:, free].T @ (theta * wa[col:]), 0


def _subsm(free, l, u, nbd, z, r, wy, ws, theta, x, g, col, wn):
    """The subspace minimization (Morales and Nocedal's 2011 version): the Newton step of the
    model over the free variables from the Cauchy point z, projected on the box, and pulled back
    along the step when the projection points uphill. Returns (z, info)."""
    if free.size == 0:
        return z, 0
    wyf, wsf = wy[:, free], ws[:, free]
    wv = np.concatenate([wyf @ r, theta * (wsf @ r)])
    wv, info = _trs(wn, wv, True)
    if info:
        return z, info
    wv[:col] = -wv[:col]
    wv, info = _trs(wn, wv, False)
    if info:
        return z, info
    d = (1.0 / theta) * (r + wyf.T @ wv[:col] / theta + wsf.T @ wv[col:])
    xp = z.copy()
    xk, lk, uk, kind = z[free], l[free], u[free], nbd[free]
    moved = xk + d
    moved = np.where(kind == 1, np.maximum(lk, moved),
                     np.where(kind == 2, np.minimum(uk, np.maximum(lk, moved)),
                              np.where(kind == 3, np.minimum(uk, moved), moved)))
    at_bound = ((kind == 1) | (kind == 2)) & (moved == lk) | ((kind == 2) | (kind == 3)) & (moved == uk)
    z = z.copy()
    z[free] = moved
    if not np.any(at_bound) or float((z - x) @ g) <= 0.0:
        return z, 0
    # The projected step points uphill: go back, and along d to the first bound instead.
    z = xp
    alpha = 1.0
    temp1 = 1.0
    ibd = 0
    dl, kinds, lo, hi, xs = d.tolist(), kind.tolist(), lk.tolist(), uk.tolist(), xk.tolist()
    for i in range(len(dl)):
        dk = dl[i]
        if kinds[i] != 0:
            if dk < 0.0 and kinds[i] <= 2:
                temp2 = lo[i] - xs[i]
                if temp2 >= 0.0:
                    temp1 = 0.0
                elif dk * alpha < temp2:
                    temp1 = temp2 / dk
            elif dk > 0.0 and kinds[i] >= 2:
                temp2 = hi[i] - xs[i]
                if temp2 <= 0.0:
                    temp1 = 0.0
                elif dk * alpha > temp2:
                    temp1 = temp2 / dk
            if temp1 < alpha:
                alpha = temp1
                ibd = i
    xk = xk.copy()
    if alpha < 1.0:
        dk = dl[ibd]
        if dk > 0.0:
            xk[ibd] = hi[ibd]
            d[ibd] = 0.0
        elif dk < 0.0:
            xk[ibd] = lo[ibd]
            d[ibd] = 0.0
    z[free] = xk + alpha * d
    return z, 0


def _dcstep(stx, fx, dx, sty, fy, dy, stp, fp, dp, brackt, stpmin, stpmax):
    """MINPACK-2's dcstep: a safeguarded cubic or quadratic step, and the interval updated.
    Returns (stx, fx, dx, sty, fy, dy, stp, brackt)."""
    sgnd = dp * _div(dx, abs(dx))
    if fp > fx:
        theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), max(abs(dx), abs(dp)))
        gamma = s * _sqrt((theta / s) ** 2 - (dx / s) * (dp / s))
        if stp < stx:
            gamma = -gamma
        p = (gamma - dx) + theta
        q = ((gamma - dx) + gamma) + dp
        r = p / q
        stpc = stx + r * (stp - stx)
        stpq = stx + ((dx / ((fx - fp) / (stp - stx) + dx)) / 2.0) * (stp - stx)
        if abs(stpc - stx) < abs(stpq - stx):
            stpf = stpc
        else:
            stpf = stpc + (stpq - stpc) / 2.0
        brackt = True
    elif sgnd < 0.0:
        theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), max(abs(dx), abs(dp)))
        gamma = s * _sqrt((theta / s) ** 2 - (dx / s) * (dp / s))
        if stp > stx:
            gamma = -gamma
        p = (gamma - dp) + theta
        q = ((gamma - dp) + gamma) + dx
        r = p / q
        stpc = stp + r * (stx - stp)
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        if abs(stpc - stp) > abs(stpq - stp):
            stpf = stpc
        else:
            stpf = stpq
        brackt = True
    elif abs(dp) < abs(dx):
        theta = 3.0 * (fx - fp) / (stp - stx) + dx + dp
        s = max(abs(theta), max(abs(dx), abs(dp)))
        gamma = s * math.sqrt(max(0.0, (theta / s) ** 2 - (dx / s) * (dp / s)))
        if stp > stx:
            gamma = -gamma
        p = (gamma - dp) + theta
        q = (gamma + (dx - dp)) + gamma
        r = p / q
        if r < 0.0 and gamma != 0.0:
            stpc = stp + r * (stx - stp)
        elif stp > stx:
            stpc = stpmax
        else:
            stpc = stpmin
        stpq = stp + (dp / (dp - dx)) * (stx - stp)
        if brackt:
            if abs(stpc - stp) < abs(stpq - stp):
                stpf = stpc
            else:
                stpf = stpq
            if stp > stx:
                stpf = min(stp + 0.66 * (sty - stp), stpf)
            else:
                stpf = max(stp + 0.66 * (sty - stp), stpf)
        else:
            if abs(stpc - stp) > abs(stpq - stp):
                stpf = stpc
            else:
                stpf = stpq
            stpf = min(stpmax, stpf)
            stpf = max(stpmin, stpf)
    else:
        if brackt:
            theta = 3.0 * (fp - fy) / (sty - stp) + dy + dp
            s = max(abs(theta), max(abs(dy), abs(dp)))
            gamma = s * _sqrt((theta / s) ** 2 - (dy / s) * (dp / s))
            if stp > sty:
                gamma = -gamma
            p = (gamma - dp) + theta
            q = ((gamma - dp) + gamma) + dy
            r = p / q
            stpc = stp + r * (sty - stp)
            stpf = stpc
        elif stp > stx:
            stpf = stpmax
        else:
            stpf = stpmin
    if fp > fx:
        sty, fy, dy = stp, fp, dp
    else:
        if sgnd < 0.0:
            sty, fy, dy = stx, fx, dx
        stx, fx, dx = stp, fp, dp
    return stx, fx, dx, sty, fy, dy, stpf, brackt


def _dcsrch(f, g, stp, ftol, gtol, xtol, stpmin, stpmax, task, state):
    """MINPACK-2's dcsrch (More and Thuente): a step meeting the sufficient decrease and the
    curvature conditions, by reverse communication. `state` is its saved work (brackt, stage,
    ginit, gtest, gx, gy, finit, fx, fy, stx, sty, stmin, stmax, width, width1), kept from one
    search to the next as lbfgsb.c's isave/dsave. Returns (stp, task, message)."""
    xtrapl, xtrapu = 1.1, 4.0
    if task == _START:
        error = 0
        if stp < stpmin:
            error = 706
        if stp > stpmax:
            error = 707
        if g >= 0.0:
            error = 710
        if ftol < 0.0:
            error = 703
        if gtol < 0.0:
            error = 704
        if xtol < 0.0:
            error = 705
        if stpmin < 0.0:
            error = 708
        if stpmax < stpmin:
            error = 709
        if error:
            return stp, _ERROR, error
        width = stpmax - stpmin
        state[:] = [False, 1, g, ftol * g, g, g, f, f, f, 0.0, 0.0, 0.0, stp + xtrapu * stp, width, width / 0.5]
        return stp, _FG, 0
    brackt, stage, ginit, gtest, gx, gy, finit, fx, fy, stx, sty, stmin, stmax, width, width1 = state
    ftest = finit + stp * gtest
    if stage == 1 and f <= ftest and g >= 0.0:
        stage = 2
    task, message = _FG, 0
    if brackt and (stp <= stmin or stp >= stmax):
        task, message = _WARNING, 601
    if brackt and stmax - stmin <= xtol * stmax:
        task, message = _WARNING, 604
    if stp == stpmax and f <= ftest and g <= gtest:
        task, message = _WARNING, 602
    if stp == stpmin and (f > ftest or g >= gtest):
        task, message = _WARNING, 603
    if f <= ftest and abs(g) <= gtol * (-ginit):
        task = _CONVERGENCE
    if task == _WARNING or task == _CONVERGENCE:
        state[:] = [brackt, stage, ginit, gtest, gx, gy, finit, fx, fy, stx, sty, stmin, stmax, width, width1]
        return stp, task, message
    if stage == 1 and f <= fx and f > ftest:
        # The modified function psi(stp) = f(stp) - f(0) - ftol stp f'(0) predicts the step.
        fm = f - stp * gtest
        fxm = fx - stx * gtest
        fym = fy - sty * gtest
        gm = g - gtest
        gxm = gx - gtest
        gym = gy - gtest
        stx, fxm, gxm, sty, fym, gym, stp, brackt = _dcstep(stx, fxm, gxm, sty, fym, gym, stp, fm, gm, brackt,
                                                           stmin, stmax)
        fx = fxm + stx * gtest
        fy = fym + sty * gtest
        gx = gxm + gtest
        gy = gym + gtest
    else:
        stx, fx, gx, sty, fy, gy, stp, brackt = _dcstep(stx, fx, gx, sty, fy, gy, stp, f, g, brackt, stmin, stmax)
    if brackt:
        if abs(sty - stx) >= 0.66 * width1:
            stp = stx + 0.5 * (sty - stx)
        width1 = width
        width = abs(sty - stx)
    if brackt:
        stmin = min(stx, sty)
        stmax = max(stx, sty)
    else:
        stmin = stp + xtrapl * (stp - stx)
        stmax = stp + xtrapu * (stp - stx)
    stp = max(stp, stpmin)
    stp = min(stp, stpmax)
    if (brackt and (stp <= stmin or stp >= stmax)) or (brackt and stmax - stmin <= xtol * stmax):
        stp = stx
    state[:] = [brackt, stage, ginit, gtest, gx, gy, finit, fx, fy, stx, sty, stmin, stmax, width, width1]
    return stp, _FG, 0


def _setulb(evaluate, new_x, x, l, u, nbd, m, factr, pgtol, maxls):
    """lbfgsb.c's setulb/mainlb with its driver's loop folded in: `evaluate(x)` gives (f, g)
    at x (float64 arrays), `new_x(x, f)` is told of each iterate and gives 0 or the STOP message
    that ends the run. Returns a dict of the run's end: x, f (the last one evaluated, as SciPy
    reports it), g, task, message, and ws/wy/iupdat for the inverse Hessian."""
    n = x.size
    col = head = itail = iupdat = 0
    theta = 1.0
    updatd = False
    it = 0
    tol = factr * _EPSMCH
    ws = np.zeros((m, n))
    wy = np.zeros((m, n))
    sy = np.zeros((m, m))
    ss = np.zeros((m, m))
    wt = np.zeros((0, 0))
    wn = np.zeros((0, 0))
    wn1 = np.zeros((2 * m, 2 * m))
    free = np.arange(n)
    entering = leaving = np.zeros(0, dtype=int)
    c = np.zeros(0)
    iwhere = np.zeros(n, dtype=int)
    search = [False, 0] + [0.0] * 13

    def result(task, message, f, g):
        return dict(x=x, f=f, g=g, task=task, message=message, ws=ws, wy=wy, iupdat=iupdat)

    # errclb: the arguments' checks.
    error = 0
    if n <= 0:
        error = 712
    if m <= 0:
        error = 711
    if factr < 0:
        error = 702
    if np.any((nbd < 0) | (nbd > 3)):
        error = 713
    if np.any((nbd == 2) & (l > u)):
        error = 701
    if error:
        return result(_ERROR, error, 0.0, np.zeros(n))
    # active: x projected on the box, and which variables are bounded.
    x = np.where(((nbd == 1) | (nbd == 2)) & (x < l), l, x)
    x = np.where(((nbd == 2) | (nbd == 3)) & (x > u), u, x)
    cnstnd = bool(np.any(nbd != 0))
    boxed = bool(np.all(nbd == 2))
    iwhere = np.where(nbd == 0, -1, np.where((nbd == 2) & (u - l <= 0.0), 3, 0))

    f_seen, g = evaluate(x)
    f = float(f_seen)
    sbgnrm = _projgr(l, u, nbd, x, g)
    if sbgnrm <= pgtol:
        return result(_CONVERGENCE, 401, f_seen, g)

    while True:
        ring = np.array([(head + j) % m for j in range(col)], dtype=int)
        wy_ring, ws_ring = wy[ring], ws[ring]
        if cnstnd or col == 0:
            info, z, c = _cauchy(x, l, u, nbd, g, iwhere, wy_ring, ws_ring, sy, wt, theta, col, sbgnrm)
            if info:
                # A singular triangular system: the memory is refreshed.
                col, head, theta, iupdat, updatd = 0, 0, 1.0, 0, False
                continue
            free, entering, leaving, wrk = _freev(free, iwhere, updatd, cnstnd, it)
        else:
            z = x.copy()
            wrk = updatd
        if free.size != 0 and col != 0:
            info = 0
            if wrk:
                wn, info = _formk(free, entering, leaving, iupdat, updatd, wn1, m, wy_ring, ws_ring, sy, theta, col)
            if info == 0:
                r, info = _cmprlb(x, g, wy_ring, ws_ring, sy, wt, z, c, free, theta, col, cnstnd)
            if info == 0:
                z, info = _subsm(free, l, u, nbd, z, r, wy_ring, ws_ring, theta, x, g, col, wn)
            if info:
                col, head, theta, iupdat, updatd = 0, 0, 1.0, 0, False
                continue
        d = z - x

        # lnsrlb: the line search, dcsrch kept within the box.
        dnorm = math.sqrt(float(d @ d))
        dtd = dnorm * dnorm
        stpmx = 1e10
        if cnstnd:
            if it == 0:
                stpmx = 1.0
            else:
                towards_l = (d < 0.0) & (nbd != 0) & (nbd <= 2)
                towards_u = (d > 0.0) & (nbd >= 2)
                room_l, room_u = l - x, u - x
                if np.any(towards_l & (room_l >= 0.0)) or np.any(towards_u & (room_u <= 0.0)):
                    stpmx = 0.0
                else:
                    limited = towards_l | towards_u
                    if np.any(limited):
                        room = np.where(towards_l, room_l, room_u)[limited]
                        stpmx = min(stpmx, float(np.min(room / d[limited])))
        stp = min(_div(1.0, dnorm), stpmx) if it == 0 and not boxed else 1.0
        t = x
        r = g
        fold = f
        ifun = iback = 0
        search_task = _START
        restarted = False
        while True:
            info = 0
            gd = float(g @ d)
            if ifun == 0:
                gdold = gd
                if gd >= 0.0:
                    # The directional derivative is not negative: no line search is possible.
                    info = -4
            if info == 0:
                stp, search_task, _ = _dcsrch(f, gd, stp, 1e-3, 0.9, 0.1, 0.0, stpmx, search_task, search)
                if search_task != _CONVERGENCE and search_task != _WARNING:
                    ifun += 1
                    iback = ifun - 1
                    if iback < maxls:
                        if stp == 1.0:
                            x = z.copy()
                        else:
                            x = stp * d + t
                            x = np.where((nbd == 1) | (nbd == 2), np.maximum(x, l), x)
                            x = np.where((nbd == 2) | (nbd == 3), np.minimum(x, u), x)
            if info != 0 or iback >= maxls:
                x, g, f = t, r, fold
                if col == 0:
                    return result(_ABNORMAL, 0, f_seen, g)
                # The memory is refreshed and the iteration restarted.
                col, head, theta, iupdat, updatd = 0, 0, 1.0, 0, False
                restarted = True
                break
            if search_task == _CONVERGENCE or search_task == _WARNING:
                break
            f_seen, g = evaluate(x)
            f = float(f_seen)
        if restarted:
            continue
        it += 1
        sbgnrm = _projgr(l, u, nbd, x, g)
        stop = new_x(x, f_seen)
        if stop:
            return result(_STOP, stop, f_seen, g)
        if sbgnrm <= pgtol:
            return result(_CONVERGENCE, 401, f_seen, g)
        ddum = max(abs(fold), abs(f), 1.0)
        if fold - f <= tol * ddum:
            return result(_CONVERGENCE, 402, f_seen, g)
        r = g - r
        rr = float(r @ r)
        if stp == 1.0:
            dr = gd - gdold
            ddum = -gdold
        else:
            dr = (gd - gdold) * stp
            d = stp * d
            ddum = -gdold * stp
        if dr <= _EPSMCH * ddum:
            # The curvature condition failed: the update is skipped.
            updatd = False
            continue
        # matupd: the new correction pair into S and Y, theta, and S'Y and S'S.
        updatd = True
        iupdat += 1
        if iupdat <= m:
            col = iupdat
            itail = (head + iupdat - 1) % m
        else:
            itail = (itail + 1) % m
            head = (head + 1) % m
        ws[itail] = d
        wy[itail] = r
        theta = rr / dr
        if iupdat > m:
            ss[:col - 1, :col - 1] = ss[1:col, 1:col].copy()
            sy[:col - 1, :col - 1] = sy[1:col, 1:col].copy()
        older = np.array([(head + j) % m for j in range(col - 1)], dtype=int)
        sy[col - 1, :col - 1] = wy[older] @ d
        ss[:col - 1, col - 1] = ws[older] @ d
        ss[col - 1, col - 1] = dtd if stp == 1.0 else stp * stp * dtd
        sy[col - 1, col - 1] = dr
        wt, info = _formt(sy, ss, col, theta)
        if info:
            col, head, theta, iupdat, updatd = 0, 0, 1.0, 0, False


class Bounds:
    """Bounds lb <= x <= ub on the variables, as SciPy's (arrays broadcast together)."""

    def __init__(self, lb=-np.inf, ub=np.inf, keep_feasible=False):
        lb, ub = np.atleast_1d(np.asarray(lb)), np.atleast_1d(np.asarray(ub))
        keep_feasible = np.atleast_1d(np.asarray(keep_feasible)).astype(bool)
        try:
            shape = (np.zeros(lb.shape) + np.zeros(ub.shape) + np.zeros(keep_feasible.shape)).shape
        except ValueError:
            raise ValueError("`lb`, `ub`, and `keep_feasible` must be broadcastable.") from None
        self.lb = np.broadcast_to(lb, shape)
        self.ub = np.broadcast_to(ub, shape)
        self.keep_feasible = np.broadcast_to(keep_feasible, shape)

    def __repr__(self):
        start = f"{type(self).__name__}({self.lb!r}, {self.ub!r}"
        if np.any(self.keep_feasible):
            return start + f", keep_feasible={self.keep_feasible!r})"
        return start + ")"

    def residual(self, x):
        return x - self.lb, self.ub - x


class LbfgsInvHessProduct:
    """The L-BFGS inverse Hessian of a run as an operator (`hess_inv`): `matvec`, `dot`, `@`
    and `todense`, by the two-loop recursion over the stored correction pairs, as SciPy's
    LinearOperator (which this is not a subclass of)."""

    def __init__(self, sk, yk):
        if sk.shape != yk.shape or sk.ndim != 2:
            raise ValueError('sk and yk must have matching shape, (n_corrs, n)')
        n_corrs, n = sk.shape
        self.sk, self.yk, self.n_corrs = sk, yk, n_corrs
        self.shape = (n, n)
        self.dtype = np.dtype(np.float64)
        self.ndim = 2
        self.rho = 1 / np.sum(sk * yk, axis=1)

    def matvec(self, x):
        s, y, rho = self.sk, self.yk, self.rho
        q = np.array(x, dtype=np.float64).reshape(-1)
        alpha = np.zeros(self.n_corrs)
        for i in range(self.n_corrs - 1, -1, -1):
            alpha[i] = rho[i] * np.dot(s[i], q)
            q = q - alpha[i] * y[i]
        r = q
        for i in range(self.n_corrs):
            beta = rho[i] * np.dot(y[i], r)
            r = r + s[i] * (alpha[i] - beta)
        return r

    def matmat(self, X):
        X = np.asarray(X, dtype=np.float64)
        return np.stack([self.matvec(X[:, j]) for j in range(X.shape[1])], axis=1)

    def dot(self, x):
        x = np.asarray(x)
        return self.matvec(x) if x.ndim == 1 else self.matmat(x)

    def __matmul__(self, x):
        return self.dot(x)

    def __call__(self, x):
        return self.dot(x)

    def todense(self):
        return self.matmat(np.eye(self.shape[0]))

    def __repr__(self):
        return f"<{self.shape[0]}x{self.shape[1]} {type(self).__name__} with dtype={self.dtype}>"


class _MemoizeJac:
    """A function returning (f, g) as two: f now, g from the same call (SciPy's MemoizeJac)."""

    def __init__(self, fun):
        self.fun = fun
        self.jac = None
        self._value = None
        self.x = None

    def _compute_if_needed(self, x, *args):
        if self.x is None or not np.all(x == self.x) or self._value is None or self.jac is None:
            self.x = np.asarray(x).copy()
            fg = self.fun(x, *args)
            self.jac = fg[1]
            self._value = fg[0]

    def __call__(self, x, *args):
        self._compute_if_needed(x, *args)
        return self._value

    def derivative(self, x, *args):
        self._compute_if_needed(x, *args)
        return self.jac


def _float_eps(dtype):
    """np.finfo(dtype).eps as a NumPy scalar of that type. (Not read from np.finfo: the
    playground's np.finfo(np.float32) gives JAX arrays, whose ** rounds otherwise.)"""
    size = np.dtype(dtype).itemsize
    if size == 4:
        return np.float32(2.0 ** -23)
    if size == 2:
        return np.float16(2.0 ** -10)
    return np.float64(2.0 ** -52)


def _eps_for_method(x_dtype, f_dtype, method):
    """The relative step of SciPy's approx_derivative: sqrt (or cube root, for '3-point') of
    the epsilon of the narrower of x's and f's floating types."""
    eps = _float_eps(np.float64)
    x_inexact = np.issubdtype(x_dtype, np.inexact)
    if x_inexact:
        eps = _float_eps(x_dtype)
    if np.issubdtype(f_dtype, np.inexact) and x_inexact and np.dtype(f_dtype).itemsize < np.dtype(x_dtype).itemsize:
        eps = _float_eps(f_dtype)
    return eps ** 0.5 if method == "2-point" else eps ** (1 / 3)


def _approx_gradient(call, x0, f0, method, rel_step, abs_step, lb, ub):
    """The gradient by finite differences as SciPy's approx_derivative takes it for a scalar
    function: '2-point' forward differences (or '3-point' central ones), an absolute step
    `abs_step` (where it moves x at x's precision, else the relative one), or the relative step
    rel_step * sign(x) * max(1, |x|) (rel_step by default sqrt(eps)), turned back or shortened
    where it would leave the bounds. Returns (g, evaluations)."""
    f0 = np.atleast_1d(f0)
    if np.any((x0 < lb) | (x0 > ub)):
        raise ValueError("`x0` violates bound constraints.")
    sign = (x0 >= 0).astype(float) * 2 - 1
    relative = _eps_for_method(x0.dtype, f0.dtype, method) * sign * np.maximum(1.0, np.abs(x0))
    if abs_step is None:
        if rel_step is None:
            h = relative
        else:
            h = rel_step * sign * np.abs(x0)
            h = np.where((x0 + h) - x0 == 0, relative, h)
    else:
        h = np.where((x0 + abs_step) - x0 == 0, relative, abs_step)
    h = np.asarray(h, dtype=float) * np.ones(x0.shape)
    one_sided = np.ones(x0.shape, dtype=bool)
    bounded = not np.all((lb == -np.inf) & (ub == np.inf))
    if method == "2-point":
        if bounded:
            lower, upper = x0 - lb, ub - x0
            moved = x0 + h
            violated = (moved < lb) | (moved > ub)
            fitting = np.abs(h) <= np.maximum(lower, upper)
            adjusted = np.where(violated & fitting, -h, h)
            adjusted = np.where((upper >= lower) & ~fitting, upper, adjusted)
            h = np.where((upper < lower) & ~fitting, -lower, adjusted)
    else:
        h = np.abs(h)
        one_sided = np.zeros(x0.shape, dtype=bool)
        if bounded:
            lower, upper = x0 - lb, ub - x0
            central = (lower >= h) & (upper >= h)
            forward = (upper >= lower) & ~central
            backward = (upper < lower) & ~central
            adjusted = np.where(forward, np.minimum(h, 0.5 * upper), h)
            adjusted = np.where(backward, -np.minimum(h, 0.5 * lower), adjusted)
            one_sided = forward | backward
            min_dist = np.minimum(upper, lower)
            back_to_central = ~central & (np.abs(adjusted) <= min_dist)
            h = np.where(back_to_central, min_dist, adjusted)
            one_sided = one_sided & ~back_to_central
    n = x0.size
    g = np.zeros(n)
    for i in range(n):
        if method == "2-point":
            moved = np.copy(x0)
            moved[i] = x0[i] + h[i]
            df = np.atleast_1d(call(moved)) - f0
            dx = (x0[i] + h[i]) - x0[i]
        else:
            near, far = np.copy(x0), np.copy(x0)
            if one_sided[i]:
                near[i] = x0[i] + h[i]
                far[i] = x0[i] + 2 * h[i]
                f1, f2 = np.atleast_1d(call(near)), np.atleast_1d(call(far))
                df = -3.0 * f0 + 4 * f1 - f2
                dx = far[i] - x0[i]
            else:
                near[i] = x0[i] - h[i]
                far[i] = x0[i] + h[i]
                f1, f2 = np.atleast_1d(call(near)), np.atleast_1d(call(far))
                df = f2 - f1
                dx = far[i] - near[i]
        g[i] = (df / dx)[0]
    return g, n * (1 if method == "2-point" else 2)


class _ScalarFunction:
    """f and its gradient at the last x asked for, as SciPy's ScalarFunction keeps them: both
    evaluated at x0 at once, the function given x (a copy) in x0's floating type (float64 for
    integers), a gradient from `grad` (callable) or by finite differences ('2-point' or
    '3-point'; with `epsilon`, the absolute step), nfev counting the differences' calls."""

    def __init__(self, fun, x0, args, grad, epsilon, rel_step, lb, ub):
        if grad == "cs":
            raise NotImplementedError("scipy.optimize's complex-step differences (jac='cs') are not supported by "
                                      "the playground yet")
        self.fun, self.args, self.grad = fun, args, grad
        self.epsilon, self.rel_step = epsilon, rel_step
        x0 = np.atleast_1d(np.asarray(x0))
        self.dtype = x0.dtype if np.issubdtype(x0.dtype, np.floating) else np.dtype(np.float64)
        self.x = x0.astype(self.dtype)
        n = self.x.size
        self.lb = np.full(n, -np.inf) if lb is None else np.asarray(lb, dtype=float)
        self.ub = np.full(n, np.inf) if ub is None else np.asarray(ub, dtype=float)
        self.nfev = self.ngev = 0
        self.f = self._call(self.x)
        self.g = self._gradient(self.x)
        self.current = True

    def _call(self, x):
        fx = self.fun(np.copy(x), *self.args)
        self.nfev += 1
        if not np.isscalar(fx):
            try:
                fx = np.asarray(fx).item()
            except (TypeError, ValueError):
                raise ValueError("The user-provided objective function must return a scalar value.") from None
        return fx

    def _gradient(self, x):
        self.ngev += 1
        if callable(self.grad):
            return np.atleast_1d(np.asarray(self.grad(np.copy(x), *self.args)))
        g, _ = _approx_gradient(self._call_counted_apart, x, self.f, self.grad, self.rel_step, self.epsilon,
                                self.lb, self.ub)
        return g

    def _call_counted_apart(self, x):
        return self._call(x.astype(self.dtype))

    def fun_and_grad(self, x):
        if not np.array_equal(x, self.x):
            self.x = np.atleast_1d(np.asarray(x)).astype(self.dtype)
            self.f = self._call(self.x)
            self.g = self._gradient(self.x)
        return self.f, self.g


def _old_bound_to_new(bounds):
    def scalar(b):
        return b.item() if isinstance(b, np.ndarray) else b

    lb = np.array([float(scalar(pair[0])) if pair[0] is not None else -np.inf for pair in bounds])
    ub = np.array([float(scalar(pair[1])) if pair[1] is not None else np.inf for pair in bounds])
    return lb, ub


class _Callback:
    """The user's callback as SciPy wraps it: given a copy of x, or the OptimizeResult where
    its one parameter is named `intermediate_result`; StopIteration from it ends the run.
    (Where inspect.signature is not there, as in the playground, the first call tries the
    keyword and falls back to x when the callback refuses it.)"""

    def __init__(self, callback, expand=None):
        self.callback = callback
        self.expand = expand
        self.stop_iteration = False
        try:
            import inspect
            self.by_result = set(inspect.signature(callback).parameters) == {"intermediate_result"}
        except (TypeError, ValueError, ImportError, AttributeError, NotImplementedError):
            self.by_result = None

    def halts(self, res):
        if self.expand is not None:
            res = OptimizeResult(x=self.expand(res.x), fun=res.fun)
        try:
            if self.by_result is None:
                try:
                    self.callback(intermediate_result=res)
                    self.by_result = True
                except TypeError as e:
                    if "intermediate_result" not in str(e):
                        raise
                    self.by_result = False
                    self.callback(np.copy(res.x))
            elif self.by_result:
                self.callback(intermediate_result=res)
            else:
                self.callback(np.copy(res.x))
        except StopIteration:
            self.stop_iteration = True
            return True
        return False


def _minimize_lbfgsb(fun, x0, args=(), jac=None, bounds=None, disp=_NoValue, maxcor=10, ftol=2.2204460492503131e-09,
                     gtol=1e-5, eps=1e-8, maxfun=15000, maxiter=15000, iprint=_NoValue, callback=None, maxls=20,
                     finite_diff_rel_step=None, workers=None, **unknown_options):
    if unknown_options:
        import warnings
        warnings.warn("Unknown solver options: " + ", ".join(str(k) for k in unknown_options), OptimizeWarning,
                      stacklevel=4)
    if disp is not _NoValue or iprint is not _NoValue:
        import warnings
        warnings.warn("scipy.optimize: The `disp` and `iprint` options of the L-BFGS-B solver are deprecated "
                      "and will be removed in SciPy 1.18.0.", DeprecationWarning, stacklevel=3)
    m = maxcor
    factr = ftol / np.finfo(float).eps
    x0 = np.asarray(x0).ravel()
    n = x0.shape[0]
    lb = ub = None
    if bounds is not None:
        if len(bounds) != n:
            raise ValueError('length of x0 != length of bounds')
        lb, ub = _old_bound_to_new(bounds)
        if np.any(lb > ub):
            raise ValueError("LBFGSB - one of the lower bounds is greater than an upper bound.")
        x0 = np.clip(x0, lb, ub)
    sf = _ScalarFunction(fun, x0, args, "2-point" if jac is None else jac, eps if jac is None else None,
                         finite_diff_rel_step, lb, ub)
    nbd, lower, upper = [0] * n, [0.0] * n, [0.0] * n
    if lb is not None:
        for i in range(n):
            lo, hi = float(lb[i]), float(ub[i])
            has_lo, has_hi = lo != -math.inf, hi != math.inf
            if has_lo:
                lower[i] = lo
            if has_hi:
                upper[i] = hi
            nbd[i] = (2 if has_hi else 1) if has_lo else (3 if has_hi else 0)
    if not maxls > 0:
        raise ValueError('maxls must be positive.')
    n_iterations = 0

    def evaluate(x):
        f, g = sf.fun_and_grad(x.copy())
        return f, np.array(g, dtype=np.float64).ravel()

    def new_x(x, f):
        nonlocal n_iterations
        n_iterations += 1
        stop = 0
        if callback is not None and callback.halts(OptimizeResult(x=np.array(x), fun=f)):
            stop = 505
        if n_iterations >= maxiter:
            stop = 504
        elif sf.nfev > maxfun:
            stop = 502
        return stop

    x = np.array(x0, dtype=np.float64)
    end = _setulb(evaluate, new_x, x, np.array(lower), np.array(upper), np.array(nbd), m, factr, gtol, maxls)
    if end["task"] == _CONVERGENCE:
        warnflag = 0
    elif sf.nfev > maxfun or n_iterations >= maxiter:
        warnflag = 1
    else:
        warnflag = 2
    n_corrs = min(end["iupdat"], m)
    hess_inv = LbfgsInvHessProduct(end["ws"][:n_corrs].copy(), end["wy"][:n_corrs].copy())
    message = _STATUS_WORDS[end["task"]] + ": " + _TASK_WORDS[end["message"]]
    return OptimizeResult(fun=end["f"], jac=end["g"], nfev=sf.nfev, njev=sf.ngev, nit=n_iterations, status=warnflag,
                          message=message, x=end["x"], success=warnflag == 0, hess_inv=hess_inv)


def fmin_l_bfgs_b(func, x0, fprime=None, args=(), approx_grad=0, bounds=None, m=10, factr=1e7, pgtol=1e-5,
                  epsilon=1e-8, iprint=_NoValue, maxfun=15000, maxiter=15000, disp=_NoValue, callback=None,
                  maxls=20):
    """L-BFGS-B (Byrd, Lu, Nocedal and Zhu; v3.0, with Morales and Nocedal's subspace step):
    the generalized Cauchy point along the projected gradient, the limited-memory model
    minimized over the variables it leaves free, and More and Thuente's line search (dcsrch:
    ftol 1e-3, gtol 0.9, xtol 0.1) kept in the box; it stops when the projected gradient's
    largest component is at most `pgtol` or f fell by at most factr * eps relatively.

    This is SciPy's lbfgsb.c (SciPy 1.15+'s C version of the Fortran) translated routine by
    routine, with its driver (`_minimize_lbfgsb`) and its ScalarFunction's evaluations and
    finite differences (float32 x0 included), so it takes SciPy's steps and counts (nit,
    funcalls) and reports SciPy's messages. What differs is the rounding: lbfgsb.c's loops
    over variables and corrections are NumPy array operations here, and the small Cholesky
    factorizations and triangular solves it hands to LAPACK are np.linalg's cholesky and
    solve, so sums round in another order than SciPy's OpenBLAS kernels; iterates agree to
    the last few bits, and a long ill-conditioned run (where a 1-ulp change of x0 moves SciPy
    itself) can take a few iterations more or fewer. The heap that orders the Cauchy search's
    breakpoints is lbfgsb.c's, so ties are broken as SciPy breaks them. `hess_inv` is a small
    operator (matvec/dot/@/todense), not a LinearOperator subclass; `iprint` and `disp` only
    warn, as in SciPy 1.17."""
    if approx_grad:
        fun, jac = func, None
    elif fprime is None:
        fun = _MemoizeJac(func)
        jac = fun.derivative
    else:
        fun, jac = func, fprime
    res = _minimize_lbfgsb(fun, x0, args=args, jac=jac, bounds=bounds, disp=disp, iprint=iprint, maxcor=m,
                           ftol=factr * np.finfo(float).eps, gtol=pgtol, eps=epsilon, maxfun=maxfun, maxiter=maxiter,
                           callback=None if callback is None else _Callback(callback), maxls=maxls)
    d = {'grad': res['jac'], 'task': res['message'], 'funcalls': res['nfev'], 'nit': res['nit'],
         'warnflag': res['status']}
    return res['x'], res['fun'], d


def _minimize_with_lbfgsb(fun, x0, args, jac, hess, hessp, bounds, constraints, tol, callback, options):
    """`minimize`'s part before and after `_minimize_lbfgsb`, as SciPy's: x0 one-dimensional,
    `jac` read, `tol` as ftol and gtol, bounds checked and variables that they fix taken out
    of the problem when the gradient is by differences."""
    import warnings
    x0 = np.atleast_1d(np.asarray(x0))
    if x0.ndim != 1:
        raise ValueError("'x0' must only have one dimension.")
    if np.issubdtype(x0.dtype, np.integer):
        x0 = np.asarray(x0, dtype=float)
    if not isinstance(args, tuple):
        args = (args,)
    if hess is not None:
        warnings.warn('Method L-BFGS-B does not use Hessian information (hess).', RuntimeWarning, stacklevel=3)
    if hessp is not None:
        warnings.warn('Method L-BFGS-B does not use Hessian-vector product information (hessp).', RuntimeWarning,
                      stacklevel=3)
    if constraints:
        warnings.warn('Method L-BFGS-B cannot handle constraints.', RuntimeWarning, stacklevel=3)
    options = dict(options or {})
    if options.pop('return_all', False):
        warnings.warn('Method L-BFGS-B does not support the return_all option.', RuntimeWarning, stacklevel=3)
    if callable(jac):
        pass
    elif jac is True:
        fun = _MemoizeJac(fun)
        jac = fun.derivative
    elif isinstance(jac, str) and jac in ("2-point", "3-point", "cs"):
        pass
    else:
        jac = None
    if tol is not None:
        options.setdefault('ftol', tol)
        options.setdefault('gtol', tol)
    fixed = None
    if bounds is not None:
        if isinstance(bounds, Bounds):
            lb, ub = np.asarray(bounds.lb, dtype=float), np.asarray(bounds.ub, dtype=float)
        else:
            lb, ub = _old_bound_to_new(bounds)
        if np.any(ub < lb):
            raise ValueError("An upper bound is less than the corresponding lower bound.")
        try:
            lb, ub = np.broadcast_to(lb, x0.shape), np.broadcast_to(ub, x0.shape)
        except ValueError:
            raise ValueError("The number of bounds is not compatible with the length of `x0`.") from None
        is_fixed = [bool(lo == hi) for lo, hi in zip(lb.tolist(), ub.tolist())]
        if all(is_fixed):
            x = np.array(lb, dtype=float)
            return OptimizeResult(x=x, fun=fun(x, *args), success=True,
                                  message='All independent variables were fixed by bounds.', nfev=1, njev=0, nhev=0)
        if any(is_fixed) and not callable(jac):
            fixed = (is_fixed, [v for v, f in zip(lb.tolist(), is_fixed) if f])
            free = [i for i, f in enumerate(is_fixed) if not f]
            x0 = x0[np.array(free)]
            lb, ub = lb[np.array(free)], ub[np.array(free)]
            fun = _WithFixed(fun, is_fixed, fixed[1])
        bounds = [(float(lo) if lo > -np.inf else None, float(hi) if hi < np.inf else None)
                  for lo, hi in zip(lb.tolist(), ub.tolist())]
    wrapped = None if callback is None else _Callback(callback, None if fixed is None else fun.expand)
    res = _minimize_lbfgsb(fun, x0, args, jac, bounds, callback=wrapped, **options)
    if fixed is not None:
        res.x = _with_fixed(res.x, fixed[0], fixed[1])
        res.jac = _with_fixed(res.jac, fixed[0], [np.nan] * len(fixed[1]))
        res.hess_inv = None
    if wrapped is not None and wrapped.stop_iteration:
        res.success = False
        res.status = 99
        res.message = "`callback` raised `StopIteration`."
    return res


def _with_fixed(values, is_fixed, fixed_values):
    """The full vector from the free variables' `values` and the fixed ones' `fixed_values`."""
    free, fixed = iter(np.asarray(values).tolist()), iter(fixed_values)
    return np.array([next(fixed) if f else next(free) for f in is_fixed], dtype=np.asarray(values).dtype)


class _WithFixed:
    """A function of all the variables called with the free ones (SciPy's _Remove_From_Func)."""

    def __init__(self, fun, is_fixed, fixed_values):
        self.fun, self.is_fixed, self.fixed_values = fun, is_fixed, fixed_values

    def expand(self, x):
        return _with_fixed(x, self.is_fixed, self.fixed_values)

    def __call__(self, x, *args):
        return np.array(self.fun(self.expand(x), *args))
