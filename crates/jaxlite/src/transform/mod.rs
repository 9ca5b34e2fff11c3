//! Transformations of Jaxprs: forward mode ([`jvp`]), reverse mode ([`linearize`], then
//! [`transpose`] the linear part, as JAX does) and batching ([`vmap`]).
//!
//! Every transformation maps a Jaxpr to a Jaxpr, so they compose (`grad(grad(f))`,
//! `jacfwd(jacrev(f))`, `vmap(grad(f))`) and their results run wherever a Jaxpr runs: staged
//! into an enclosing `jit`, or op by op through [`crate::Context::apply_jaxpr`]. The rules
//! live one file per transformation, each a `match` with one arm per primitive, in the order
//! of `prim.rs`: `jvp.rs` (derivatives), `transpose.rs` (for the linear primitives that
//! tangents flow through), `vmap.rs` (batching).
//!
//! Transformations take Jaxprs without constvars: `Context::end_trace_open` turns what a
//! function closed over into leading invars.

mod jvp;
mod lower;
mod transpose;
mod vmap;

pub use jvp::{closed_over, jvp};
pub use lower::{computed, lower, lower_keeping_windows, needs_lowering, scalar_loop, window_starts};
pub use transpose::{linearize, transpose, Linearized, Vjp, WHILE_REVERSE};
pub use vmap::{batch_traced_bwd, batch_traced_passes, batch_traced_rule, vmap, vmap_outputs, vmap_outputs_named};

use crate::array::Aval;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Literal, Var};
use crate::prim::{BinaryOp, CompareOp, Primitive, UnaryOp};
use crate::trace::JaxError;
use std::collections::HashMap;

type Result<T> = std::result::Result<T, JaxError>;

/// Builds a Jaxpr equation by equation, checking each with its primitive's shape rule.
#[derive(Default)]
pub struct Builder {
    next: u32,
    invars: Vec<Var>,
    eqns: Vec<Eqn>,
    types: HashMap<Var, Aval>,
    /// The source of the equations bound from now on: a transformation sets it to the
    /// equation it is rewriting, so what it derives keeps that place, as in JAX.
    pub source: Option<std::rc::Rc<crate::jaxpr::SourceInfo>>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    fn fresh(&mut self, aval: Aval) -> Var {
        let v = Var(self.next);
        self.next += 1;
        self.types.insert(v, aval);
        v
    }

    /// A new input of the Jaxpr being built.
    pub fn input(&mut self, aval: Aval) -> Atom {
        let v = self.fresh(aval);
        self.invars.push(v);
        Atom::Var(v)
    }

    pub fn aval(&self, a: &Atom) -> Aval {
        match a {
            Atom::Var(v) => self.types[v].clone(),
            Atom::Literal(l) => l.aval.clone(),
        }
    }

    pub fn shape(&self, a: &Atom) -> Vec<usize> {
        self.aval(a).shape
    }

    pub fn bind(&mut self, prim: Primitive, inputs: &[Atom]) -> Result<Vec<Atom>> {
        let avals: Vec<Aval> = inputs.iter().map(|a| self.aval(a)).collect();
        let outs: Vec<Var> = prim.abstract_eval(&avals)?.into_iter().map(|a| self.fresh(a)).collect();
        self.eqns.push(Eqn { prim, inputs: inputs.to_vec(), outputs: outs.clone(), source: self.source.clone() });
        Ok(outs.into_iter().map(Atom::Var).collect())
    }

    pub fn bind1(&mut self, prim: Primitive, inputs: &[Atom]) -> Result<Atom> {
        Ok(self.bind(prim, inputs)?.remove(0))
    }

    pub fn finish(self, outvars: Vec<Atom>) -> Jaxpr {
        Jaxpr { constvars: vec![], invars: self.invars, eqns: self.eqns, outvars, types: self.types }
    }

    /// Copies `jaxpr`'s equations in, applied to `inputs`; returns its outputs. Each keeps
    /// its own source, or takes the builder's where it has none.
    pub fn inline(&mut self, jaxpr: &Jaxpr, inputs: &[Atom]) -> Result<Vec<Atom>> {
        let mut env: HashMap<Var, Atom> = jaxpr.all_inputs().zip(inputs.iter().cloned()).collect();
        let read = |env: &HashMap<Var, Atom>, a: &Atom| match a {
            Atom::Var(v) => env[v].clone(),
            lit => lit.clone(),
        };
        let around = self.source.clone();
        for eqn in &jaxpr.eqns {
            self.source = eqn.source.clone().or_else(|| around.clone());
            let ins: Vec<Atom> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
            let bound = self.bind(eqn.prim.clone(), &ins);
            let outs = match bound {
                Ok(outs) => outs,
                Err(e) => {
                    self.source = around;
                    return Err(e);
                }
            };
            env.extend(eqn.outputs.iter().copied().zip(outs));
        }
        self.source = around;
        Ok(jaxpr.outvars.iter().map(|a| read(&env, a)).collect())
    }

    // Helpers the rules are written with. Scalars are inline literals, as in JAX's Jaxprs.

    pub fn lit(&self, value: f64, dtype: DType) -> Atom {
        Atom::Literal(Literal { value, aval: Aval::new(vec![], dtype) })
    }

    /// A constant of `like`'s dtype, as JAX's rules make one (`_const`): weakly typed where
    /// `like` is a weakly typed scalar, so the derivative of a Python number stays weak.
    pub fn lit_like(&self, value: f64, like: &Atom) -> Atom {
        let aval = self.aval(like);
        let weak = aval.weak_type && aval.rank() == 0;
        Atom::Literal(Literal { value, aval: Aval { weak_type: weak, ..Aval::new(vec![], aval.dtype) } })
    }

    /// `value` broadcast to `shape`.
    pub fn full(&mut self, shape: &[usize], value: f64, dtype: DType) -> Result<Atom> {
        let scalar = self.lit(value, dtype);
        if shape.is_empty() {
            return Ok(scalar);
        }
        self.bind1(Primitive::BroadcastInDim { shape: shape.to_vec(), broadcast_dimensions: vec![] }, &[scalar])
    }

    pub fn zeros(&mut self, aval: &Aval) -> Result<Atom> {
        self.full(&aval.shape, 0.0, aval.dtype)
    }

    pub fn unary(&mut self, op: UnaryOp, x: &Atom) -> Result<Atom> {
        self.bind1(Primitive::Unary(op), std::slice::from_ref(x))
    }

    pub fn binary(&mut self, op: BinaryOp, x: &Atom, y: &Atom) -> Result<Atom> {
        self.bind1(Primitive::Binary(op), &[x.clone(), y.clone()])
    }

    pub fn add(&mut self, x: &Atom, y: &Atom) -> Result<Atom> {
        self.binary(BinaryOp::Add, x, y)
    }

    /// The sum of two (co)tangents of one value, as differentiation writes it.
    pub fn add_any(&mut self, x: &Atom, y: &Atom) -> Result<Atom> {
        self.bind1(Primitive::AddAny, &[x.clone(), y.clone()])
    }

    pub fn sub(&mut self, x: &Atom, y: &Atom) -> Result<Atom> {
        self.binary(BinaryOp::Sub, x, y)
    }

    pub fn mul(&mut self, x: &Atom, y: &Atom) -> Result<Atom> {
        self.binary(BinaryOp::Mul, x, y)
    }

    pub fn div(&mut self, x: &Atom, y: &Atom) -> Result<Atom> {
        self.binary(BinaryOp::Div, x, y)
    }

    pub fn neg(&mut self, x: &Atom) -> Result<Atom> {
        self.unary(UnaryOp::Neg, x)
    }

    /// `x * c` for a Python-number constant, in `x`'s dtype.
    pub fn scale(&mut self, x: &Atom, c: f64) -> Result<Atom> {
        let c = self.lit_like(c, x);
        self.mul(x, &c)
    }

    pub fn compare(&mut self, op: CompareOp, x: &Atom, y: &Atom) -> Result<Atom> {
        self.bind1(Primitive::Compare(op), &[x.clone(), y.clone()])
    }

    /// `which ? on_true : on_false`, elementwise.
    pub fn select(&mut self, which: &Atom, on_false: &Atom, on_true: &Atom) -> Result<Atom> {
        self.bind1(Primitive::SelectN, &[which.clone(), on_false.clone(), on_true.clone()])
    }

    pub fn convert(&mut self, x: &Atom, dtype: DType) -> Result<Atom> {
        if self.aval(x).dtype == dtype {
            return Ok(x.clone());
        }
        self.bind1(Primitive::ConvertElementType { new_dtype: dtype, weak_type: false }, std::slice::from_ref(x))
    }

    pub fn reshape(&mut self, x: &Atom, shape: &[usize]) -> Result<Atom> {
        if self.shape(x) == shape {
            return Ok(x.clone());
        }
        self.bind1(Primitive::Reshape { new_sizes: shape.to_vec() }, std::slice::from_ref(x))
    }

    pub fn reduce_sum(&mut self, x: &Atom, axes: Vec<usize>) -> Result<Atom> {
        if axes.is_empty() {
            return Ok(x.clone());
        }
        self.bind1(Primitive::ReduceSum { axes }, std::slice::from_ref(x))
    }

    pub fn broadcast_in_dim(&mut self, x: &Atom, shape: &[usize], dims: Vec<usize>) -> Result<Atom> {
        if self.shape(x) == shape {
            return Ok(x.clone());
        }
        self.bind1(
            Primitive::BroadcastInDim { shape: shape.to_vec(), broadcast_dimensions: dims },
            std::slice::from_ref(x),
        )
    }

    /// A rank-0 `x` broadcast to `shape` (other values are returned as they are).
    pub fn expand_scalar(&mut self, x: &Atom, shape: &[usize]) -> Result<Atom> {
        if self.shape(x).is_empty() && !shape.is_empty() {
            self.broadcast_in_dim(x, shape, vec![])
        } else {
            Ok(x.clone())
        }
    }

    pub fn transpose(&mut self, x: &Atom, permutation: Vec<usize>) -> Result<Atom> {
        if permutation.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(x.clone());
        }
        self.bind1(Primitive::Transpose { permutation }, std::slice::from_ref(x))
    }

    /// Moves axis `from` of `x` to position `to`.
    pub fn move_axis(&mut self, x: &Atom, from: usize, to: usize) -> Result<Atom> {
        let rank = self.shape(x).len();
        let mut perm: Vec<usize> = (0..rank).filter(|&d| d != from).collect();
        perm.insert(to, from);
        self.transpose(x, perm)
    }
}

/// A new variable of type `aval` among `types` (a Jaxpr's), numbered past every one there.
pub(crate) fn fresh_var(types: &mut HashMap<Var, Aval>, aval: Aval) -> Var {
    let v = Var(types.keys().map(|v| v.0 + 1).max().unwrap_or(0));
    types.insert(v, aval);
    v
}

/// `jaxpr` without the equations nothing it returns depends on, except effects (IO and debug
/// callbacks), which stay with what they read.
pub fn dce(jaxpr: &Jaxpr) -> Jaxpr {
    let mut live: std::collections::HashSet<Var> = jaxpr.outvars.iter().filter_map(var_of).collect();
    let mut kept: Vec<Eqn> = Vec::with_capacity(jaxpr.eqns.len());
    for eqn in jaxpr.eqns.iter().rev() {
        if eqn.prim.has_effect() || eqn.outputs.iter().any(|v| live.contains(v)) {
            live.extend(eqn.inputs.iter().filter_map(var_of));
            kept.push(eqn.clone());
        }
    }
    kept.reverse();
    Jaxpr { eqns: kept, ..jaxpr.clone() }
}

fn var_of(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }
}
