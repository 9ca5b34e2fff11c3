"""scipy.optimize on the host: `root` with SciPy's default method, `hybr`, Powell's hybrid
(dog-leg) method as MINPACK's hybrd/hybrj run it: a trust region in variables scaled by the
Jacobian's column norms, the Gauss-Newton step where it fits, else a step towards the Cauchy
point along the steepest descent, the region grown or shrunk by how well the linear model
predicted the reduction of |f|, and convergence when the region is within `xtol` of x.

Unlike MINPACK this evaluates the Jacobian again after each accepted step rather than updating
its QR factors by Broyden's rank-one formula, so it takes other steps (and counts other
evaluations) on the way to the same root: results agree with SciPy's to the tolerance `xtol`,
not to the last digit, and `nfev`/`njev` differ."""

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

    def __repr__(self):
        width = max(len(k) for k in self.__dict__)
        lines = []
        for key, value in self.__dict__.items():
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
    differ from SciPy's, and the minimum agrees to the tolerance, not to the last digit."""
    name = "BFGS" if method is None else method
    if not isinstance(name, str) or name.upper() != "BFGS":
        raise NotImplementedError(
            f"scipy.optimize.minimize with method={method!r} is not supported by the playground yet (method='BFGS' is)")
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
