//! Programs with loops, run by parts. A `while` equation's trip count is data: the emulated
//! machine's instruction stream has no branch yet (issue 28 gives it a scalar unit), so the
//! host runs the loop, as a GPU backend that reads the predicate back would. The program is
//! cut at each `while`: the straight-line parts between loops, the condition and the body are
//! each a program of their own, compiled once and called as often as the loop needs, the
//! carries passed from one call to the next. Each part is reported under the program's name
//! (`f/part1`, `f/while1/cond`, `f/while1/body`; a program that is one loop and nothing else
//! has just `f/cond` and `f/body`).

use crate::array::Array;
use crate::eval::{endless_loop, literal_array};
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{Primitive, WhileLoop};
use crate::trace::{Executor, JaxError, LocalFuture, ProgramCall};
use std::collections::HashMap;

type Result<T> = std::result::Result<T, JaxError>;

/// Whether `jaxpr` has a `while`, at its top level or inside a function it calls.
pub fn has_loop(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| match &e.prim {
        Primitive::While { .. } => true,
        Primitive::CustomJvpCall { function, .. } => has_loop(&function.call),
        Primitive::CustomVjpCall { function } => has_loop(&function.call),
        _ => false,
    })
}

/// Runs `call` through `executor`: at once when it has no loop, else by parts (see the
/// module's comment), stopping after `limit` iterations of all its loops together.
pub async fn run(executor: &mut dyn Executor, limit: u64, mut call: ProgramCall) -> Result<Vec<Array>> {
    if !has_loop(&call.jaxpr) {
        return executor.execute(call).await;
    }
    // Custom derivatives' calls inlined (exposing loops inside them), every predicate one
    // boolean.
    let jaxpr = crate::transform::lower(&call.jaxpr)?;
    let args = std::mem::take(&mut call.args);
    let mut parts = Parts { executor, call, iterations: 0, limit };
    let name = parts.call.name.clone();
    parts.run(name, &jaxpr, args).await
}

/// What every part's call shares, and the loops' iterations so far.
struct Parts<'e> {
    executor: &'e mut dyn Executor,
    /// The program being run (its name, precision, and the bytes uploaded for it, charged to
    /// the first part).
    call: ProgramCall,
    iterations: u64,
    limit: u64,
}

impl Parts<'_> {
    fn run<'a>(&'a mut self, name: String, jaxpr: &'a Jaxpr, args: Vec<Array>) -> LocalFuture<'a, Result<Vec<Array>>> {
        Box::pin(async move {
            let mut env: HashMap<Var, Array> = jaxpr.all_inputs().zip(args).collect();
            let read = |env: &HashMap<Var, Array>, a: &Atom| match a {
                Atom::Var(v) => env.get(v).cloned().ok_or_else(|| JaxError(format!("internal error: {v:?} unbound"))),
                Atom::Literal(l) => Ok(literal_array(l.value, &l.aval)),
            };
            if jaxpr.eqns.is_empty() {
                return jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
            }
            if !jaxpr.eqns.iter().any(|e| matches!(e.prim, Primitive::While { .. })) {
                let args = jaxpr.all_inputs().map(|v| env[&v].clone()).collect();
                return self.execute(name, jaxpr.clone(), args).await;
            }
            // Where each variable is last read: an equation's index, or past the end for the
            // Jaxpr's outputs.
            let mut last_read: HashMap<Var, usize> = HashMap::new();
            for (i, eqn) in jaxpr.eqns.iter().enumerate() {
                last_read.extend(eqn.inputs.iter().filter_map(var).map(|v| (v, i)));
            }
            last_read.extend(jaxpr.outvars.iter().filter_map(var).map(|v| (v, usize::MAX)));
            let alone = jaxpr.eqns.len() == 1;
            let (mut part, mut loops) = (0, 0);
            let mut i = 0;
            while i < jaxpr.eqns.len() {
                let eqn = &jaxpr.eqns[i];
                if let Primitive::While { function } = &eqn.prim {
                    loops += 1;
                    let name = if alone { name.clone() } else { format!("{name}/while{loops}") };
                    let ins = eqn.inputs.iter().map(|a| read(&env, a)).collect::<Result<Vec<_>>>()?;
                    let outs = self.run_loop(&name, function, ins).await?;
                    env.extend(eqn.outputs.iter().copied().zip(outs));
                    i += 1;
                    continue;
                }
                let end = (i..jaxpr.eqns.len())
                    .find(|&j| matches!(jaxpr.eqns[j].prim, Primitive::While { .. }))
                    .unwrap_or(jaxpr.eqns.len());
                part += 1;
                let (segment, args) = straight_part(jaxpr, i..end, &last_read, &env)?;
                if !segment.outvars.is_empty() {
                    let outs = self.execute(format!("{name}/part{part}"), segment.clone(), args).await?;
                    env.extend(segment.outvars.iter().filter_map(var).zip(outs));
                }
                i = end;
            }
            jaxpr.outvars.iter().map(|a| read(&env, a)).collect()
        })
    }

    /// The body while the condition holds, each a program run through the executor.
    async fn run_loop(&mut self, name: &str, w: &WhileLoop, operands: Vec<Array>) -> Result<Vec<Array>> {
        let [cond_consts, body_consts, carries] = w.split(&operands);
        let mut carries = carries.to_vec();
        loop {
            let predicate = self.run(format!("{name}/cond"), &w.cond, [cond_consts, &carries].concat()).await?;
            if predicate[0].to_f64_vec()[0] == 0.0 {
                return Ok(carries);
            }
            self.iterations += 1;
            if self.iterations > self.limit {
                return Err(endless_loop(self.limit));
            }
            carries = self.run(format!("{name}/body"), &w.body, [body_consts, &carries].concat()).await?;
        }
    }

    async fn execute(&mut self, name: String, jaxpr: Jaxpr, args: Vec<Array>) -> Result<Vec<Array>> {
        let call = ProgramCall {
            name,
            jaxpr,
            args,
            default_precision: self.call.default_precision,
            eager: false,
            host_to_device_bytes: std::mem::take(&mut self.call.host_to_device_bytes),
        };
        self.executor.execute(call).await
    }
}

/// The equations `range` of `jaxpr` as a program: its inputs the values they read from
/// earlier (with those values, from `env`), its outputs the values they compute that are read
/// later.
fn straight_part(
    jaxpr: &Jaxpr,
    range: std::ops::Range<usize>,
    last_read: &HashMap<Var, usize>,
    env: &HashMap<Var, Array>,
) -> Result<(Jaxpr, Vec<Array>)> {
    let eqns = jaxpr.eqns[range.clone()].to_vec();
    let defined: std::collections::HashSet<Var> = eqns.iter().flat_map(|e| e.outputs.iter().copied()).collect();
    let mut invars: Vec<Var> = Vec::new();
    for v in eqns.iter().flat_map(|e| e.inputs.iter().filter_map(var)) {
        if !defined.contains(&v) && !invars.contains(&v) {
            invars.push(v);
        }
    }
    let outvars: Vec<Atom> = eqns
        .iter()
        .flat_map(|e| e.outputs.iter().copied())
        .filter(|v| last_read.get(v).is_some_and(|&at| at >= range.end))
        .map(Atom::Var)
        .collect();
    let args = invars
        .iter()
        .map(|v| env.get(v).cloned().ok_or_else(|| JaxError(format!("internal error: {v:?} unbound"))))
        .collect::<Result<Vec<_>>>()?;
    let used = invars.iter().copied().chain(defined);
    let types = used.map(|v| (v, jaxpr.aval(v).clone())).collect();
    Ok((Jaxpr { constvars: vec![], invars, eqns, outvars, types }, args))
}

fn var(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }
}
