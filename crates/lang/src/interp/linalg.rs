//! `jax.numpy.linalg` beyond `norm`: `solve`, `inv`, `det`, `slogdet`, `cholesky` and
//! `matrix_power`, written over the playground's own `jnp` functions (as `composed.rs` is), so
//! they trace, differentiate and batch like any other composition. The machine has no
//! factorisation unit: a solve is Gauss–Jordan elimination with partial pivoting (the pivot
//! chosen as LAPACK's `getrf` chooses it, the largest magnitude, the first of equals), one
//! column per step, every update elementwise on the vector unit (no bf16 matmul passes, as
//! JAX's own linear algebra runs at full float32). `n` steps of O(n²) work each, unrolled, so
//! matrices are kept small.

use super::builtins::no_more_kwargs;
use super::composed::{int, kw};
use super::jax::int_arg;
use super::value::Value;
use super::{err, Interp, R};
use crate::ast::BinOp;
use jaxlite::{Array, Data, LocalFuture};

/// `jax.numpy.linalg` names implemented here, as the dispatcher names them.
pub const LINALG_FUNCTIONS: &[&str] =
    &["linalg.solve", "linalg.inv", "linalg.det", "linalg.slogdet", "linalg.cholesky", "linalg.matrix_power"];

/// The largest matrix side these unrolled algorithms take.
const MAX_SIDE: usize = 64;

/// An int32 column `0..n` as `(n, 1)` (row positions), or as `(n,)`.
fn positions(n: usize, column: bool) -> Value {
    let shape = if column { vec![n, 1] } else { vec![n] };
    Value::array(Array::new(shape, Data::I32((0..n as i32).collect())))
}

fn linalg_error(message: &str) -> super::RtError {
    super::RtError::of(super::objects::Builtin::LinAlgError, message)
}

impl Interp<'_, '_> {
    /// The side n of the square matrices `x` (…, n, n) holds, checked against what the unrolled
    /// algorithms take.
    fn square_side(&self, name: &str, x: &Value) -> R<usize> {
        let shape = self.to_tensor(x)?.aval().shape.clone();
        match shape.as_slice() {
            [.., 0, 0] => super::unsupported(format!("jnp.linalg.{name} of 0×0 matrices is not supported by the playground yet")),
            [.., r, c] if r == c && *r <= MAX_SIDE => Ok(*r),
            [.., r, c] if r == c => {
                err(format!("jnp.linalg.{name}: the playground unrolls {r}×{r} matrices step by step, at most {MAX_SIDE}×{MAX_SIDE}"))
            }
            _ => super::value_err(format!("Argument to {name} must have shape [..., n, n], got {}.", jaxlite::numpy::shape_str(&shape))),
        }
    }

    pub(super) fn call_linalg<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let short = name.trim_start_matches("linalg.");
            let mut arg =
                |i: usize, key: &str| super::builtins::take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let a = arg(0, "a")
                .ok_or_else(|| super::RtError::new(format!("{short}() missing 1 required positional argument: 'a'")))?;
            let second = match short {
                "solve" => Some(
                    arg(1, "b")
                        .ok_or_else(|| super::RtError::new("solve() missing 1 required positional argument: 'b'"))?,
                ),
                "matrix_power" => Some(arg(1, "n").ok_or_else(|| {
                    super::RtError::new("matrix_power() missing 1 required positional argument: 'n'")
                })?),
                _ => None,
            };
            let upper = if short == "cholesky" { arg(1, "upper") } else { None };
            no_more_kwargs(name, &kwargs)?;
            let a = self.inexact(a).await?;
            let n = self.square_side(short, &a)?;
            match short {
                "solve" => {
                    let b = self.inexact(second.unwrap_or(Value::None)).await?;
                    self.solve(a, b, n).await
                }
                "inv" => {
                    let eye = self.identity_like(&a, n).await?;
                    let (inverse, _, pivots) = self.gauss_jordan(a, eye, n).await?;
                    self.refuse_singular(&pivots)?;
                    Ok(inverse)
                }
                // JAX's: closed forms for 2×2 and 3×3, else sign · exp(log|det|).
                "det" if n == 2 || n == 3 => self.small_det(a, n).await,
                "det" | "slogdet" => {
                    let none = self.no_columns(&a)?;
                    let (_, mut sign, pivots) = self.gauss_jordan(a, none, n).await?;
                    let mut logabs = Value::Float(0.0);
                    for p in pivots {
                        let s = self.np1("sign", vec![p.clone()]).await?;
                        sign = self.binary(BinOp::Mul, sign, s).await?;
                        let magnitude = self.np1("abs", vec![p]).await?;
                        let log = self.np1("log", vec![magnitude]).await?;
                        logabs = self.binary(BinOp::Add, logabs, log).await?;
                    }
                    if short == "slogdet" {
                        return Ok(Value::tuple(vec![sign, logabs]));
                    }
                    let magnitude = self.np1("exp", vec![logabs]).await?;
                    self.binary(BinOp::Mul, sign, magnitude).await
                }
                "cholesky" => {
                    let upper = match upper {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    let l = self.cholesky(a, n).await?;
                    if let (true, Value::Array(jaxlite::Tensor::Concrete(l))) = (self.ctx.on_host(), &l) {
                        if l.to_f64_vec().iter().any(|v| v.is_nan()) {
                            return Err(linalg_error("Matrix is not positive definite"));
                        }
                    }
                    if upper {
                        self.np1("matrix_transpose", vec![l]).await
                    } else {
                        Ok(l)
                    }
                }
                _ => {
                    let power = int_arg(&second.unwrap_or(Value::None))?;
                    self.matrix_power(a, n, power).await
                }
            }
        })
    }

    /// JAX's closed forms of 2×2 and 3×3 determinants, term by term in its order.
    async fn small_det(&mut self, a: Value, n: usize) -> R<Value> {
        let mut at = std::collections::HashMap::new();
        for i in 0..n {
            let row = self.np("take", vec![a.clone(), int(i as i64)], vec![kw("axis", int(-2))]).await?;
            for j in 0..n {
                at.insert((i, j), self.np("take", vec![row.clone(), int(j as i64)], vec![kw("axis", int(-1))]).await?);
            }
        }
        // (added or subtracted, the elements multiplied)
        let terms: Vec<(bool, Vec<(usize, usize)>)> = if n == 2 {
            vec![(true, vec![(0, 0), (1, 1)]), (false, vec![(0, 1), (1, 0)])]
        } else {
            vec![
                (true, vec![(0, 0), (1, 1), (2, 2)]),
                (true, vec![(0, 1), (1, 2), (2, 0)]),
                (true, vec![(0, 2), (1, 0), (2, 1)]),
                (false, vec![(0, 2), (1, 1), (2, 0)]),
                (false, vec![(0, 0), (1, 2), (2, 1)]),
                (false, vec![(0, 1), (1, 0), (2, 2)]),
            ]
        };
        let mut det: Option<Value> = None;
        for (plus, factors) in terms {
            let mut product = at[&factors[0]].clone();
            for f in &factors[1..] {
                product = self.binary(BinOp::Mul, product, at[f].clone()).await?;
            }
            det = Some(match det {
                None => product,
                Some(d) => self.binary(if plus { BinOp::Add } else { BinOp::Sub }, d, product).await?,
            });
        }
        det.ok_or_else(|| super::RtError::of(super::objects::Builtin::ValueError, "det: no terms"))
    }

    /// Row (`from_end` 2) or column (`from_end` 1) `k` of the matrices `x`, kept as an axis of
    /// one: a static slice.
    async fn part(&mut self, x: &Value, from_end: usize, k: usize) -> R<Value> {
        let t = self.to_tensor(x)?;
        let axis = t.aval().rank() - from_end;
        Ok(Value::Array(super::arrange::slice_axis(self.ctx, &t, axis, k, k + 1).await?))
    }

    /// Identity matrices over `a`'s leading axes, in its dtype.
    async fn identity_like(&mut self, a: &Value, n: usize) -> R<Value> {
        let dtype = Value::str(self.to_tensor(a)?.aval().dtype.name());
        let eye = self.np("eye", vec![int(n as i64)], vec![kw("dtype", dtype)]).await?;
        let shape = self.shape_of(a)?;
        self.np1("broadcast_to", vec![eye, shape]).await
    }

    fn shape_of(&self, x: &Value) -> R<Value> {
        let shape = self.to_tensor(x)?.aval().shape.clone();
        Ok(Value::tuple(shape.iter().map(|&d| int(d as i64)).collect()))
    }

    /// A right-hand side of no columns (…, n, 0): elimination for the pivots alone.
    fn no_columns(&self, a: &Value) -> R<Value> {
        let t = self.to_tensor(a)?;
        let mut shape = t.aval().shape.clone();
        if let Some(last) = shape.last_mut() {
            *last = 0;
        }
        Ok(Value::array(jaxlite::numpy::full(&shape, 0.0, t.aval().dtype)))
    }

    /// `solve(a, b)`: `b` a vector (1-D) or a stack of matrices (…, n, m), broadcast against
    /// `a`'s leading axes, as NumPy 2 and JAX take it.
    async fn solve(&mut self, a: Value, b: Value, n: usize) -> R<Value> {
        let (ashape, bshape) = (self.to_tensor(&a)?.aval().shape.clone(), self.to_tensor(&b)?.aval().shape.clone());
        let vector = bshape.len() == 1;
        let b = if vector { self.np1("expand_dims", vec![b, int(-1)]).await? } else { b };
        let bshape = self.to_tensor(&b)?.aval().shape.clone();
        if bshape.len() < 2 || bshape[bshape.len() - 2] != n {
            return err(format!(
                "solve: b must have shape (..., {n}) or (..., {n}, m) for a of shape {}, got {}",
                jaxlite::numpy::shape_str(&ashape),
                jaxlite::numpy::shape_str(&self.to_tensor(&b)?.aval().shape)
            ));
        }
        // The leading axes of both, broadcast.
        let lead = jaxlite::numpy::broadcast_shapes("solve", &ashape[..ashape.len() - 2], &bshape[..bshape.len() - 2])?;
        let full = |last: &[usize]| Value::tuple(lead.iter().chain(last).map(|&d| int(d as i64)).collect());
        let a = self.np1("broadcast_to", vec![a, full(&[n, n])]).await?;
        let b = self.np1("broadcast_to", vec![b, full(&bshape[bshape.len() - 2..])]).await?;
        let (x, _, pivots) = self.gauss_jordan(a, b, n).await?;
        self.refuse_singular(&pivots)?;
        if vector {
            self.np1("squeeze", vec![x, int(-1)]).await
        } else {
            Ok(x)
        }
    }

    /// NumPy's `LinAlgError` for a matrix with an exactly zero pivot, as LAPACK's `getrf`
    /// reports it; JAX (the device) gives infinities and NaNs instead.
    fn refuse_singular(&self, pivots: &[Value]) -> R<()> {
        if !self.ctx.on_host() {
            return Ok(());
        }
        let zero = |p: &Value| matches!(p, Value::Array(jaxlite::Tensor::Concrete(a)) if a.to_f64_vec().contains(&0.0));
        match pivots.iter().any(zero) {
            true => Err(linalg_error("Singular matrix")),
            false => Ok(()),
        }
    }

    /// Gauss–Jordan elimination of `[a | b]` (…, n, n + m) with partial pivoting: `a⁻¹ b`, the
    /// sign of the row permutation (±1 over the leading axes) and the pivots in order, whose
    /// product with the sign is `det a`.
    async fn gauss_jordan(&mut self, a: Value, b: Value, n: usize) -> R<(Value, Value, Vec<Value>)> {
        let mut m = self.np("concatenate", vec![Value::list(vec![a, b])], vec![kw("axis", int(-1))]).await?;
        let width = self.to_tensor(&m)?.aval().shape.last().copied().unwrap_or(0);
        let rows = positions(n, true);
        let mut sign = Value::Float(1.0);
        let mut pivots = Vec::new();
        for k in 0..n {
            // The pivot: the largest magnitude in column k at or below row k.
            let column = self.part(&m, 1, k).await?;
            let magnitude = self.np1("abs", vec![column]).await?;
            let below = self.np1("greater_equal", vec![rows.clone(), int(k as i64)]).await?;
            let candidates = self.np1("where", vec![below, magnitude, Value::Float(-1.0)]).await?;
            let p = self
                .np("argmax", vec![candidates], vec![kw("axis", int(-2)), kw("keepdims", Value::Bool(true))])
                .await?;
            // Rows k and p swapped: row p picked out by a mask and a sum over the rows (every
            // other term is zero; a gather would compare every index with every element), row
            // k by a slice.
            let is_p = self.np1("equal", vec![rows.clone(), p.clone()]).await?;
            let picked = self.np1("where", vec![is_p.clone(), m.clone(), Value::Float(0.0)]).await?;
            let row_p =
                self.np("sum", vec![picked], vec![kw("axis", int(-2)), kw("keepdims", Value::Bool(true))]).await?;
            let row_k = self.part(&m, 2, k).await?;
            let is_k = self.np1("equal", vec![rows.clone(), int(k as i64)]).await?;
            let others = self.np1("where", vec![is_p, row_k, m]).await?;
            m = self.np1("where", vec![is_k.clone(), row_p, others]).await?;
            let moved = self.np1("not_equal", vec![p, int(k as i64)]).await?;
            let flip = self.np1("where", vec![moved, Value::Float(-1.0), Value::Float(1.0)]).await?;
            sign = self.binary(BinOp::Mul, sign, flip).await?;
            // Row k scaled by its pivot, then subtracted from every other row.
            let row = self.part(&m, 2, k).await?;
            let pivot = self.part(&row, 1, k).await?;
            let row = self.binary(BinOp::Div, row, pivot.clone()).await?;
            pivots.push(pivot);
            let factors = self.part(&m, 1, k).await?;
            let factors = self.np1("where", vec![is_k.clone(), Value::Float(0.0), factors]).await?;
            let update = self.binary(BinOp::Mul, factors, row.clone()).await?;
            let eliminated = self.binary(BinOp::Sub, m, update).await?;
            m = self.np1("where", vec![is_k, row, eliminated]).await?;
        }
        // The pivots and the sign as (…, 1, 1) until here: over the leading axes now.
        let squeeze = |v: Value| vec![v, Value::tuple(vec![int(-1), int(-2)])];
        let sign = self.np1("squeeze", squeeze(sign)).await?;
        let mut squeezed = Vec::new();
        for p in pivots {
            squeezed.push(self.np1("squeeze", squeeze(p)).await?);
        }
        let pivots = squeezed;
        let t = self.to_tensor(&m)?;
        let rank = t.aval().rank();
        let x = Value::Array(super::arrange::slice_axis(self.ctx, &t, rank - 1, n, width).await?);
        Ok((x, sign, pivots))
    }

    /// The lower Cholesky factor of the symmetrised `(a + aᵀ)/2`, as JAX takes it, column by
    /// column (Cholesky–Banachiewicz with elementwise products); NaN everywhere where the
    /// matrix is not positive definite, as JAX returns it.
    async fn cholesky(&mut self, a: Value, n: usize) -> R<Value> {
        let t = self.np1("matrix_transpose", vec![a.clone()]).await?;
        let sum = self.binary(BinOp::Add, a, t).await?;
        let a = self.binary(BinOp::Mul, sum, Value::Float(0.5)).await?;
        let mut l = self.np1("zeros_like", vec![a.clone()]).await?;
        let (rows, columns) = (positions(n, true), positions(n, false));
        let mut definite = Value::Bool(true);
        for j in 0..n {
            let j_ = int(j as i64);
            let row_j = self.part(&l, 2, j).await?;
            let a_j = self.part(&a, 1, j).await?;
            // Σ_k L[i,k] L[j,k] over the columns filled so far (the others are zero).
            let products = self.binary(BinOp::Mul, l.clone(), row_j).await?;
            let dots =
                self.np("sum", vec![products], vec![kw("axis", int(-1)), kw("keepdims", Value::Bool(true))]).await?;
            let rest = self.binary(BinOp::Sub, a_j, dots).await?;
            let s = self.part(&rest, 2, j).await?;
            let positive = self.np1("greater", vec![s.clone(), Value::Float(0.0)]).await?;
            definite = self.np1("logical_and", vec![definite, positive]).await?;
            let d = self.np1("sqrt", vec![s]).await?;
            let c = self.binary(BinOp::Div, rest, d.clone()).await?;
            // Below the diagonal the quotients, on it the root, above it zeros.
            let below = self.np1("greater", vec![rows.clone(), j_.clone()]).await?;
            let on = self.np1("equal", vec![rows.clone(), j_.clone()]).await?;
            let diagonal = self.np1("where", vec![on, d, Value::Float(0.0)]).await?;
            let c = self.np1("where", vec![below, c, diagonal]).await?;
            let is_j = self.np1("equal", vec![columns.clone(), j_]).await?;
            l = self.np1("where", vec![is_j, c, l]).await?;
        }
        self.np1("where", vec![definite, l, Value::Float(f64::NAN)]).await
    }

    /// `matrix_power(a, n)` as JAX computes it: the identity for 0, the inverse's power for a
    /// negative `n`, and otherwise products by repeated squaring in JAX's order (matmuls, at
    /// the default precision as JAX's are).
    async fn matrix_power(&mut self, a: Value, n: usize, power: i64) -> R<Value> {
        if power == 0 {
            return self.identity_like(&a, n).await;
        }
        let a = if power < 0 {
            let eye = self.identity_like(&a, n).await?;
            self.gauss_jordan(a, eye, n).await?.0
        } else {
            a
        };
        let mut e = power.unsigned_abs();
        match e {
            1 => return Ok(a),
            2 => return self.binary(BinOp::MatMul, a.clone(), a).await,
            3 => {
                let square = self.binary(BinOp::MatMul, a.clone(), a.clone()).await?;
                return self.binary(BinOp::MatMul, square, a).await;
            }
            _ => {}
        }
        // e ≥ 4 here: z runs through a, a², a⁴, …; the result multiplies in the set bits'.
        let mut z = a;
        let mut result: Option<Value> = None;
        loop {
            if e % 2 == 1 {
                result = Some(match result {
                    None => z.clone(),
                    Some(r) => self.binary(BinOp::MatMul, r, z.clone()).await?,
                });
            }
            e /= 2;
            if e == 0 {
                break;
            }
            z = self.binary(BinOp::MatMul, z.clone(), z).await?;
        }
        result.ok_or_else(|| {
            super::RtError::of(super::objects::Builtin::ValueError, "matrix_power: no bits in the power")
        })
    }
}
