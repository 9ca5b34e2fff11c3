//! Multiply-add contraction as JAX's CPU backend does it, for the reference evaluator.
//!
//! XLA's CPU compiler fuses a jitted function's elementwise operations into loops, and LLVM,
//! allowed to contract, turns a float32 multiply whose only use is an add or a subtract into
//! one fused multiply-add (x86's FMA: the product is not rounded). So `x + dt * v` inside
//! `jit` rounds once where op by op it rounds twice, and a quarter of such sums differ in the
//! last bit. Measured against JAX 0.10.2 on x86-64 (the fixture `cpu_exact_multiply_add`):
//! - `a*b + c`, `c + a*b` → fma(a, b, c); `a*b − c` → fma(a, b, −c); `c − a*b` → fma(−a, b, c);
//! - `a*b + c*d`: the left product is fused, the right one rounded;
//! - a product used twice, or also returned, is rounded (LLVM fuses a single use only);
//! - a product that is broadcast before the add is rounded; one reshaped is fused;
//! - `x**n` and `square` end in a multiply (JAX writes `integer_pow` as one), and a division
//!   that XLA makes a multiplication by the reciprocal is one too;
//! - a sum of products over axes of at most 32 accumulates with fused multiply-adds; a longer
//!   sum (cut into windows, see `eval::xla_cpu_sum`) adds rounded products;
//! - a product of constants alone is folded by XLA at compile time, rounded.
//!
//! Op by op (outside `jit`) each operation is its own program: nothing is contracted, as in
//! JAX. The TPU emulator does not contract (the modelled VPU has no fused multiply-add).

use crate::array::Array;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{BinaryOp, Primitive, UnaryOp};
use std::collections::{HashMap, HashSet};

/// What of one Jaxpr is contracted: the products kept as their factors, and for each add,
/// subtract or sum that uses one, which of its operands it is.
#[derive(Default)]
pub struct Contraction {
    products: HashSet<Var>,
    /// Equation index → operand index of the product it fuses.
    fused: HashMap<usize, usize>,
}

impl Contraction {
    pub fn of(jaxpr: &Jaxpr) -> Contraction {
        let same = merged_products(jaxpr);
        let canonical = |v: &Var| *same.get(v).unwrap_or(v);
        let mut uses: HashMap<Var, usize> = HashMap::new();
        let atoms = jaxpr.eqns.iter().flat_map(|e| e.inputs.iter()).chain(&jaxpr.outvars);
        for atom in atoms {
            if let Atom::Var(v) = atom {
                *uses.entry(canonical(v)).or_default() += 1;
            }
        }
        let returned: HashSet<Var> =
            jaxpr.outvars.iter().filter_map(|a| if let Atom::Var(v) = a { Some(canonical(v)) } else { None }).collect();
        // Products, and what passes a product used once on unchanged: a reshape (it moves no
        // element) or a float32 → float32 conversion (a weak type made strong: XLA has none).
        let mut produced_by_product: HashSet<Var> = HashSet::new();
        for eqn in &jaxpr.eqns {
            let passed_on =
                |a: &Atom| matches!(a, Atom::Var(v) if produced_by_product.contains(v) && uses[&canonical(v)] == 1);
            if is_product(&eqn.prim) || (passes_on(jaxpr, eqn) && passed_on(&eqn.inputs[0])) {
                produced_by_product.insert(eqn.outputs[0]);
            }
        }
        let folded = folded(jaxpr);
        let mut contraction = Contraction::default();
        for (i, eqn) in jaxpr.eqns.iter().enumerate() {
            let adds = matches!(
                eqn.prim,
                Primitive::Binary(BinaryOp::Add | BinaryOp::Sub) | Primitive::AddAny | Primitive::ReduceSum { .. }
            );
            if !adds || eqn.outputs.len() != 1 || jaxpr.aval(eqn.outputs[0]).dtype != DType::F32 {
                continue;
            }
            let out_size = jaxpr.aval(eqn.outputs[0]).size();
            let fusable = |atom: &Atom| match atom {
                Atom::Var(v) => {
                    produced_by_product.contains(v)
                        && !folded.contains(v)
                        && uses[&canonical(v)] == 1
                        && !returned.contains(&canonical(v))
                        && (matches!(eqn.prim, Primitive::ReduceSum { .. }) || jaxpr.aval(*v).size() == out_size)
                }
                Atom::Literal(_) => false,
            };
            // The left operand first, as LLVM tries it first.
            if let Some(k) = eqn.inputs.iter().position(fusable) {
                contraction.fused.insert(i, k);
            }
        }
        // Keep the factors of each fused product and of the products it reshapes.
        let fused_vars: Vec<Var> = contraction
            .fused
            .iter()
            .filter_map(|(&i, &k)| if let Atom::Var(v) = jaxpr.eqns[i].inputs[k] { Some(v) } else { None })
            .collect();
        let defining: HashMap<Var, &crate::jaxpr::Eqn> =
            jaxpr.eqns.iter().filter_map(|e| Some((*e.outputs.first()?, e))).collect();
        for mut v in fused_vars {
            while contraction.products.insert(v) {
                match defining[&v].inputs[0] {
                    Atom::Var(source) if passes_on(jaxpr, defining[&v]) => v = source,
                    _ => break,
                }
            }
        }
        contraction
    }

    /// Whether `var`, a product, is fused into its use (keep its factors).
    pub fn keeps_factors(&self, var: Var) -> bool {
        self.products.contains(&var)
    }

    /// The operand of equation `eqn` that is a fused product, if any.
    pub fn fused_operand(&self, eqn: usize) -> Option<usize> {
        self.fused.get(&eqn).copied()
    }
}

/// XLA merges equal computations first (CSE): a product written twice is one product with the
/// uses of both. Each product's var → the first equal one's.
fn merged_products(jaxpr: &Jaxpr) -> HashMap<Var, Var> {
    let mut first: HashMap<String, Var> = HashMap::new();
    let mut same: HashMap<Var, Var> = HashMap::new();
    for eqn in jaxpr.eqns.iter().filter(|e| is_product(&e.prim)) {
        let inputs: Vec<String> = eqn
            .inputs
            .iter()
            .map(|a| match a {
                Atom::Var(v) => format!("{:?}", same.get(v).unwrap_or(v)),
                Atom::Literal(l) => format!("{l:?}"),
            })
            .collect();
        let key = format!("{:?} {}", eqn.prim, inputs.join(" "));
        let canonical = *first.entry(key).or_insert(eqn.outputs[0]);
        same.insert(eqn.outputs[0], canonical);
    }
    same
}

/// What XLA folds at compile time, with the host's arithmetic, one rounding per operation:
/// values computed from literals alone (`jnp.arange`'s iota times its step plus its start,
/// inside `jit`). A product among them is rounded.
fn folded(jaxpr: &Jaxpr) -> HashSet<Var> {
    let mut folded: HashSet<Var> = HashSet::new();
    for eqn in &jaxpr.eqns {
        let constant = |a: &Atom| match a {
            Atom::Var(v) => folded.contains(v),
            Atom::Literal(_) => true,
        };
        if eqn.prim.sub_jaxprs().is_empty()
            && !matches!(eqn.prim, Primitive::Callback { .. })
            && eqn.inputs.iter().all(constant)
        {
            folded.extend(eqn.outputs.iter().copied());
        }
    }
    folded
}

/// Whether `eqn` hands its operand on unchanged, element for element.
pub fn passes_on(jaxpr: &Jaxpr, eqn: &crate::jaxpr::Eqn) -> bool {
    match &eqn.prim {
        Primitive::Reshape { .. } | Primitive::Squeeze { .. } => true,
        Primitive::ConvertElementType { .. } => {
            matches!(&eqn.inputs[0], Atom::Var(v) if jaxpr.aval(*v).dtype == jaxpr.aval(eqn.outputs[0]).dtype)
        }
        _ => false,
    }
}

/// A float32 operation that ends in a multiply (a `div` only where XLA makes it one, which
/// the evaluator decides as it runs).
fn is_product(prim: &Primitive) -> bool {
    match prim {
        Primitive::Binary(BinaryOp::Mul | BinaryOp::Div) | Primitive::Unary(UnaryOp::Square) => true,
        Primitive::IntegerPow { y } => *y >= 2,
        _ => false,
    }
}

/// A product kept unrounded: its factors (each one value standing for all, or one per
/// element), and whether it is a square `x·x` of one value (never −0, which LLVM knows).
pub struct Product {
    pub a: Array,
    pub b: Array,
    pub square: bool,
}

/// The factors of every element of a product, for a sum that adds them unrounded.
pub struct Products {
    a: Vec<f32>,
    b: Vec<f32>,
    square: bool,
}

impl Products {
    pub fn new(p: &Product, n: usize) -> Products {
        let expand = |x: &Array| {
            let v = x.to_f32_vec();
            if v.len() == 1 {
                vec![v[0]; n]
            } else {
                v
            }
        };
        Products { a: expand(&p.a), b: expand(&p.b), square: p.square }
    }

    /// The sum of the products at `at`, in order, as XLA's reduce loop computes it once LLVM
    /// has contracted it: each product added to the running sum by a fused multiply-add, from
    /// +0. Where the products are squares, +0 + x·x is x·x, so LLVM drops that first add, and
    /// the first two products become one fused multiply-add of the first onto the second,
    /// rounded.
    pub fn sum(&self, mut at: impl Iterator<Item = usize>) -> f32 {
        let product = |i: usize| self.a[i] * self.b[i];
        let fused = |i: usize, acc: f32| self.a[i].mul_add(self.b[i], acc);
        let first = match (self.square, at.next()) {
            (_, None) => return 0.0,
            (true, Some(i)) => match at.next() {
                Some(j) => fused(i, product(j)),
                None => product(i),
            },
            (false, Some(i)) => fused(i, 0.0),
        };
        at.fold(first, |acc, i| fused(i, acc))
    }
}

/// The two factors of the last multiply of `x**y`, as JAX's `integer_pow` multiplies: by
/// repeated squaring, the result built up from the powers its bits name (`x · 1` for y = 1,
/// `1 · 1` for y = 0), so their product is `x**y`.
pub fn integer_pow_factors(x: f32, y: u32) -> (f32, f32) {
    let (mut n, mut base) = (y, x);
    let mut base_factors = (x, 1.0);
    let mut acc: Option<(f32, (f32, f32))> = None;
    while n > 0 {
        if n & 1 == 1 {
            acc = Some(match acc {
                None => (base, base_factors),
                Some((a, _)) => (a * base, (a, base)),
            });
        }
        n >>= 1;
        if n > 0 {
            base_factors = (base, base);
            base *= base;
        }
    }
    acc.map_or((1.0, 1.0), |(_, factors)| factors)
}

/// `a·b + c` (or with the product or the addend negated) rounded once, elementwise, `n`
/// values; any of the three may be a single value standing for all.
pub fn fused_multiply_add(
    a: &Array,
    b: &Array,
    c: &Array,
    negate_product: bool,
    negate_addend: bool,
    n: usize,
) -> Vec<f64> {
    let (a, b, c) = (a.to_f32_vec(), b.to_f32_vec(), c.to_f32_vec());
    let at = |v: &[f32], i: usize| if v.len() == 1 { v[0] } else { v[i] };
    (0..n)
        .map(|i| {
            let a = if negate_product { -at(&a, i) } else { at(&a, i) };
            let c = if negate_addend { -at(&c, i) } else { at(&c, i) };
            a.mul_add(at(&b, i), c) as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::integer_pow_factors;

    #[test]
    fn integer_pow_ends_in_the_multiply_jax_writes_last() {
        let x = 1.1f32;
        assert_eq!(integer_pow_factors(x, 2), (x, x));
        assert_eq!(integer_pow_factors(x, 3), (x, x * x));
        assert_eq!(integer_pow_factors(x, 4), (x * x, x * x));
        // 5 = 0b101: x, then x⁴ · x.
        let x4 = (x * x) * (x * x);
        assert_eq!(integer_pow_factors(x, 5), (x, x4));
    }
}
