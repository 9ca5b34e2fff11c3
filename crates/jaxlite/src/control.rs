//! The functions a control-flow equation holds: a `while` loop's condition and body, a
//! `scan`'s body, a `cond`'s branches and a nested `jit`'s function, each traced once to a
//! Jaxpr whose leading inputs are the values it closes over. Shape rules here; how each runs,
//! differentiates and batches lives with the other primitives' rules (`eval.rs`, `loops.rs`,
//! `transform/`).

use crate::array::Aval;
use crate::dtype::DType;
use crate::jaxpr::Jaxpr;

/// The two functions of a `while` equation, traced to Jaxprs whose leading inputs are the
/// values they close over. `cond` returns `bool[]`, or, under `vmap` of a loop whose condition
/// depends on the batched values, `bool[B…]`, one per example: the loop then runs while any
/// example's condition holds, and only those examples take the body's new carries, as JAX's
/// lowering of a batched predicate does (the batch axes lead every carry). Compared by
/// identity, as `CustomJvp`.
#[derive(Debug)]
pub struct WhileLoop {
    /// (closed-over values, carries) -> the predicate.
    pub cond: Jaxpr,
    pub cond_consts: usize,
    /// (closed-over values, carries) -> the next carries.
    pub body: Jaxpr,
    pub body_consts: usize,
}

impl WhileLoop {
    pub fn carries(&self) -> usize {
        self.body.invars.len() - self.body_consts
    }

    /// Splits an equation's operands into (cond's closed-over values, body's, the carries).
    pub fn split<'a, T>(&self, operands: &'a [T]) -> [&'a [T]; 3] {
        let (cond, rest) = operands.split_at(self.cond_consts);
        let (body, carries) = rest.split_at(self.body_consts);
        [cond, body, carries]
    }

    /// The predicate's batch axes (empty for a plain loop).
    pub fn predicate_shape(&self) -> &[usize] {
        match self.cond.outvars.first() {
            Some(out) => &self.cond.atom_aval(out).shape,
            None => &[],
        }
    }

    /// The carries' types, checked against what the two Jaxprs were traced for: `cond` must
    /// give one boolean (or one per example, its shape leading every carry) and `body` the
    /// carries' types back.
    pub(crate) fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        let [cond_consts, body_consts, carries] = self.split(inputs);
        let declared = |jaxpr: &Jaxpr| jaxpr.invars.iter().map(|&v| jaxpr.aval(v).clone()).collect::<Vec<_>>();
        let (cond_in, body_in) = (declared(&self.cond), declared(&self.body));
        let cond_operands = cond_consts.iter().chain(carries);
        let body_operands = body_consts.iter().chain(carries);
        for (want, got) in cond_in.iter().zip(cond_operands).chain(body_in.iter().zip(body_operands)) {
            if !want.same_type(got) {
                return Err(format!("while was traced for {} and called with {}", want.short(), got.short()));
            }
        }
        if cond_in.len() != self.cond_consts + carries.len() {
            return Err("while: cond_fun takes a different number of carries than body_fun".into());
        }
        let [predicate] = &self.cond.outvars[..] else {
            return Err("while: cond_fun must return a single boolean".into());
        };
        let predicate = self.cond.atom_aval(predicate);
        let batch = &predicate.shape;
        if predicate.dtype != DType::Bool || carries.iter().any(|c| !c.shape.starts_with(batch)) {
            return Err(format!(
                "while: cond_fun must return a boolean scalar, but got output type(s) [{}]",
                predicate.short()
            ));
        }
        let outs: Vec<Aval> = self.body.outvars.iter().map(|a| self.body.atom_aval(a).clone()).collect();
        if outs.len() != carries.len()
            || outs.iter().zip(carries).any(|(o, c)| o.shape != c.shape || o.dtype != c.dtype)
        {
            let show = |avals: &mut dyn Iterator<Item = &Aval>| avals.map(Aval::short).collect::<Vec<_>>().join(", ");
            return Err(format!(
                "while: body_fun output and input must have identical types, got ({}) and ({})",
                show(&mut outs.iter()),
                show(&mut carries.iter())
            ));
        }
        Ok(self.carry_avals())
    }

    /// The types of the carries, as the body takes them.
    pub fn carry_avals(&self) -> Vec<Aval> {
        self.body.invars[self.body_consts..].iter().map(|&v| self.body.aval(v).clone()).collect()
    }
}

/// `lax.scan` as JAX stages it: `body` applied `length` times, each step taking the carries
/// and one row (along the leading axis) of each `xs`, and giving the next carries and one row
/// of each `ys`; rows are taken from the last back when `reverse`. Operands: the values the
/// body closes over, the initial carries, the `xs`; outputs: the final carries, then the
/// `ys` stacked. `fori_loop` with static bounds and `lax.map` are scans too, as in JAX.
/// Compared by identity, as `WhileLoop`.
#[derive(Clone, Debug)]
pub struct ScanLoop {
    /// (closed-over values, carries, one row of each xs) -> (next carries, one row of each ys).
    pub body: Jaxpr,
    pub consts: usize,
    pub carries: usize,
    pub length: usize,
    pub reverse: bool,
    /// How many steps one iteration of the compiled loop takes (JAX's `unroll`).
    pub unroll: usize,
}

impl ScanLoop {
    pub fn xs(&self) -> usize {
        self.body.invars.len() - self.consts - self.carries
    }

    pub fn ys(&self) -> usize {
        self.body.outvars.len() - self.carries
    }

    /// Splits an equation's operands into (closed-over values, carries, xs).
    pub fn split<'a, T>(&self, operands: &'a [T]) -> [&'a [T]; 3] {
        let (consts, rest) = operands.split_at(self.consts);
        let (carries, xs) = rest.split_at(self.carries);
        [consts, carries, xs]
    }

    /// The row index step `i` reads and writes.
    pub fn row(&self, i: usize) -> usize {
        if self.reverse {
            self.length - 1 - i
        } else {
            i
        }
    }

    /// The operands' types, checked against what the body was traced for (each `xs` a stack of
    /// `length` rows of its type), and the outputs' types.
    pub(crate) fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        if inputs.len() != self.body.invars.len() {
            return Err(format!("scan takes {} operands, got {}", self.body.invars.len(), inputs.len()));
        }
        let declared: Vec<&Aval> = self.body.invars.iter().map(|&v| self.body.aval(v)).collect();
        let xs_start = self.consts + self.carries;
        for (i, (want, got)) in declared.iter().zip(inputs).enumerate() {
            let fits = if i < xs_start {
                want.same_type(got)
            } else {
                got.shape.first() == Some(&self.length) && got.shape[1..] == want.shape[..] && got.dtype == want.dtype
            };
            if !fits {
                let want = if i < xs_start { want.short() } else { stacked(want, self.length).short() };
                return Err(format!("scan was traced for {want} and called with {}", got.short()));
            }
        }
        let outs: Vec<&Aval> = self.body.outvars.iter().map(|a| self.body.atom_aval(a)).collect();
        let carries = &declared[self.consts..xs_start];
        if outs.len() < self.carries || outs.iter().zip(carries).any(|(o, c)| o.shape != c.shape || o.dtype != c.dtype)
        {
            let show = |avals: &[&Aval]| avals.iter().map(|a| a.short()).collect::<Vec<_>>().join(", ");
            return Err(format!(
                "scan: body output and carry input must have identical types, got ({}) and ({})",
                show(&outs[..self.carries.min(outs.len())]),
                show(carries)
            ));
        }
        // As JAX, the outputs take the body's output types (a weakly typed carry the body gives
        // back strongly typed is strongly typed after the loop).
        let mut result: Vec<Aval> = outs[..self.carries].iter().map(|&a| a.clone()).collect();
        result.extend(outs[self.carries..].iter().map(|y| stacked(y, self.length)));
        Ok(result)
    }
}

/// `length` rows of `row`'s type.
pub fn stacked(row: &Aval, length: usize) -> Aval {
    let mut aval = row.clone();
    aval.shape.insert(0, length);
    aval
}

/// `lax.cond` and `lax.switch` as JAX stages them: one of `branches` applied to the operands,
/// picked by an `int32` scalar index (`cond` puts the false branch first, so its predicate
/// converted to an int is the index). Every branch takes the same operands (the values any
/// branch closes over, then the call's operands) and gives outputs of the same types. An index
/// out of range takes the nearest branch, as XLA's conditional does (`switch` clamps before).
/// Compared by identity, as `WhileLoop`.
#[derive(Debug)]
pub struct Branches {
    pub branches: Vec<Jaxpr>,
}

impl Branches {
    /// Which branch `index` picks: the nearest one when it is out of range.
    pub fn taken(&self, index: i64) -> usize {
        index.clamp(0, self.branches.len() as i64 - 1) as usize
    }

    /// How many operands each branch takes (the equation takes the index too).
    pub fn operands(&self) -> usize {
        self.branches.first().map_or(0, |b| b.invars.len())
    }

    /// The operands' types (the index first) checked against every branch's, and the outputs'
    /// types: the branches', weakly typed only where every branch's is.
    pub(crate) fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        let Some((index, operands)) = inputs.split_first() else {
            return Err("cond takes an index".into());
        };
        if index.dtype != DType::I32 || index.rank() != 0 {
            return Err(format!("cond: the branch index must be an int32 scalar, got {}", index.short()));
        }
        let Some(first) = self.branches.first() else {
            return Err("cond needs at least one branch".into());
        };
        let outs = |b: &Jaxpr| b.outvars.iter().map(|a| b.atom_aval(a).clone()).collect::<Vec<Aval>>();
        let mut result = outs(first);
        for branch in &self.branches {
            let declared = branch.invars.iter().map(|&v| branch.aval(v));
            if branch.invars.len() != operands.len() {
                return Err(format!("cond: a branch takes {} operands, got {}", branch.invars.len(), operands.len()));
            }
            for (want, got) in declared.zip(operands) {
                if !want.same_type(got) {
                    return Err(format!("cond was traced for {} and called with {}", want.short(), got.short()));
                }
            }
            let theirs = outs(branch);
            if theirs.len() != result.len() || theirs.iter().zip(&result).any(|(a, b)| !a.same_type(b)) {
                let show = |avals: &[Aval]| avals.iter().map(Aval::short).collect::<Vec<_>>().join(", ");
                return Err(format!(
                    "cond branches must have equal output types, got ({}) and ({})",
                    show(&result),
                    show(&theirs)
                ));
            }
            for (r, t) in result.iter_mut().zip(&theirs) {
                r.weak_type &= t.weak_type;
            }
        }
        Ok(result)
    }
}

/// A jitted function called inside another trace, as JAX stages it (its `pjit` primitive,
/// printed `jit`): one equation calling `body`, which was traced once for the operands' types.
/// Operands: the values the function closes over (constants, then values of the enclosing
/// trace), then its arguments. Every transformation maps the body and keeps the call, so
/// `make_jaxpr` shows the function as a unit, as JAX shows it; compiling inlines it.
/// Compared by identity, as `WhileLoop`.
#[derive(Debug)]
pub struct JitFunction {
    /// The function's name (`_where` for `jnp.where`, as JAX names its jitted helpers).
    pub name: String,
    pub body: Jaxpr,
    /// How many leading operands are the function's own constants (arrays it closed over
    /// that the enclosing trace did not compute). JAX keeps those inside the call, so they
    /// print as the body's constvars rather than as operands; to every transformation they
    /// are operands like the others.
    pub consts: usize,
}

impl JitFunction {
    /// The operands' types checked against the body's inputs; the outputs' types.
    pub(crate) fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        if inputs.len() != self.body.invars.len() {
            return Err(format!("jit {}: takes {} operands, got {}", self.name, self.body.invars.len(), inputs.len()));
        }
        for (&v, got) in self.body.invars.iter().zip(inputs) {
            let want = self.body.aval(v);
            if !want.same_type(got) {
                return Err(format!(
                    "jit {} was traced for {} and called with {}",
                    self.name,
                    want.short(),
                    got.short()
                ));
            }
        }
        Ok(self.body.outvars.iter().map(|a| self.body.atom_aval(a).clone()).collect())
    }
}

/// `jax.checkpoint` (`jax.remat`) called inside a trace, as JAX stages it (its `remat2`
/// primitive): one equation applying `body`, whose values are the function's. What it changes
/// is reverse mode: partial evaluation keeps from the forward pass only the body's inputs and
/// the values `policy` calls saveable, and the backward pass computes the rest again from them
/// (`differentiated` marks that recomputing part, as JAX's parameter does). Compiling inlines
/// it, so a program's counters include the recomputation. Compared by identity.
#[derive(Debug)]
pub struct Remat {
    pub body: Jaxpr,
    pub policy: RematPolicy,
    pub prevent_cse: bool,
    pub differentiated: bool,
}

impl Remat {
    /// The same function with another body (what JVP, vmap and transposition give).
    pub fn with_body(&self, body: Jaxpr, differentiated: bool) -> Remat {
        Remat { body, policy: self.policy.clone(), prevent_cse: self.prevent_cse, differentiated }
    }

    pub(crate) fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        if inputs.len() != self.body.invars.len()
            || self.body.invars.iter().zip(inputs).any(|(&v, got)| !self.body.aval(v).same_type(got))
        {
            return Err("checkpoint: the operands' types differ from the function's".into());
        }
        Ok(self.body.outvars.iter().map(|a| self.body.atom_aval(a).clone()).collect())
    }
}

/// Which values a `jax.checkpoint` keeps for the backward pass (`jax.checkpoint_policies`):
/// a value is saved when the equation computing it is saveable, recomputed otherwise.
#[derive(Clone, Debug, PartialEq)]
pub enum RematPolicy {
    /// `policy=None`: nothing is saved but the function's inputs.
    Unset,
    Nothing,
    Everything,
    /// `save_anything_except_these_names`, which in JAX 0.10 saves everything (its names are
    /// ignored); kept apart only because it prints otherwise.
    AnythingExcept,
    /// `dots_saveable` (`checkpoint_dots`): every `dot_general` and convolution;
    /// `dots_with_no_batch_dims_saveable`: the `dot_general`s without batch dimensions.
    Dots {
        only_if_no_batch_dims: bool,
    },
    /// `save_only_these_names(...)`: the `checkpoint_name`d values of these names.
    OnlyNames(Vec<String>),
    /// `save_any_names_but_these(...)`: every `checkpoint_name`d value but these.
    AnyNamesBut(Vec<String>),
    /// `save_from_both_policies(a, b)`: saveable by either.
    Either(Box<RematPolicy>, Box<RematPolicy>),
}

impl RematPolicy {
    /// Whether an output of an equation of `prim` whose operands are all known is saved.
    pub fn saveable(&self, prim: &crate::prim::Primitive) -> bool {
        use crate::prim::Primitive;
        let named = |prim: &Primitive| match prim {
            Primitive::Name { name } => Some(name.clone()),
            _ => None,
        };
        match self {
            RematPolicy::Unset | RematPolicy::Nothing => false,
            RematPolicy::Everything | RematPolicy::AnythingExcept => true,
            RematPolicy::Dots { only_if_no_batch_dims: true } => {
                matches!(prim, Primitive::DotGeneral { dims, .. } if dims.lhs_batch.is_empty() && dims.rhs_batch.is_empty())
            }
            RematPolicy::Dots { only_if_no_batch_dims: false } => {
                // JAX's convolutions too: the playground stages those as `dot_general`s.
                matches!(prim, Primitive::DotGeneral { .. })
            }
            RematPolicy::OnlyNames(names) => named(prim).is_some_and(|n| names.contains(&n)),
            RematPolicy::AnyNamesBut(names) => named(prim).is_some_and(|n| !names.contains(&n)),
            RematPolicy::Either(a, b) => a.saveable(prim) || b.saveable(prim),
        }
    }

    /// As the Jaxpr printer shows it (JAX's `repr`, a function's address masked as JAX's
    /// printer masks it).
    pub fn param(&self) -> String {
        self.repr("0xXXXXXXXXXXXX")
    }

    /// Python's `repr`, a function's address given.
    pub fn repr(&self, address: &str) -> String {
        let names = |names: &[String]| {
            let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            if quoted.is_empty() {
                "frozenset()".to_string()
            } else {
                format!("frozenset({{{}}})", quoted.join(", "))
            }
        };
        match self {
            RematPolicy::Unset => "None".into(),
            RematPolicy::Nothing => format!("<function nothing_saveable at {address}>"),
            RematPolicy::Everything => format!("<function everything_saveable at {address}>"),
            RematPolicy::AnythingExcept => {
                format!("<function save_anything_except_these_names.<locals>.<lambda> at {address}>")
            }
            RematPolicy::Dots { only_if_no_batch_dims } => {
                format!("DotsSaveable(only_if_no_batch_dims={})", if *only_if_no_batch_dims { "True" } else { "False" })
            }
            RematPolicy::OnlyNames(n) => format!("SaveOnlyTheseNames(saveable_names={})", names(n)),
            RematPolicy::AnyNamesBut(n) => format!("SaveAnyNamesButThese(names={})", names(n)),
            RematPolicy::Either(..) => format!("<function save_from_both_policies.<locals>.policy at {address}>"),
        }
    }
}
