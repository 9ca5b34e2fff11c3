//! Programs with loops and branches, run by parts. A `while` equation's trip count is data, a
//! `scan`'s body is one program whatever its length, and a `cond` runs one branch of several:
//! the emulated machine's instruction stream has no branch yet (issue 28 gives it a scalar
//! unit), so the host runs the loop and picks the branch, as a GPU backend that reads the
//! predicate back would. The program is cut at each loop and branch: the straight-line parts
//! between them, a `while`'s condition and body, a `scan`'s body and each branch of a `cond`
//! are each a program of their own, compiled once and called as often as the loop needs, the
//! carries passed from one call to the next (and a `scan`'s rows of `xs` and `ys` sliced and
//! stacked by the host). Only the branch a `cond`'s index picks runs, so the counters show
//! its work alone, as a TPU's would. Each part is reported under the program's name
//! (`f/part1`, `f/while1/cond`, `f/while1/body`, `f/scan1/body`, `f/cond1/branch0`; a program
//! that is one loop or branch and nothing else has just `f/cond` and `f/body`, or
//! `f/branch1`).
//!
//! A host callback (`callback.rs`) cuts the program the same way: the parts before it run, the
//! host calls the script's function with their values, and the parts after it read its
//! results. A pure callback whose results nothing reads is not called, as JAX drops it.

use crate::array::Array;
use crate::callback::{Host, HostCallback};
use crate::eval::{endless_loop, literal_array, ScanYs};
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{Branches, Primitive, ScanLoop, WhileLoop};
use crate::trace::{Executor, JaxError, LocalFuture, ProgramCall};
use crate::transform::Builder;
use std::collections::HashMap;
use std::rc::Rc;

type Result<T> = std::result::Result<T, JaxError>;

/// Whether `jaxpr` has a loop or a branch, at its top level or inside a function it calls.
pub fn has_control_flow(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| match &e.prim {
        Primitive::CustomJvpCall { function, .. } => has_control_flow(&function.call),
        Primitive::CustomVjpCall { function } => has_control_flow(&function.call),
        prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => prim.call_body().is_some_and(has_control_flow),
        _ => is_control(e),
    })
}

/// Whether `jaxpr` calls back to the host anywhere, in the functions its equations hold too.
pub fn has_callbacks(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| calls_back(&e.prim))
}

/// Whether an equation of `prim` calls back to the host: it is a callback, or a function it
/// holds has one.
pub fn calls_back(prim: &Primitive) -> bool {
    match prim {
        Primitive::Callback { .. } => true,
        Primitive::While { function } => has_callbacks(&function.cond) || has_callbacks(&function.body),
        Primitive::Scan { function } => has_callbacks(&function.body),
        Primitive::Cond { function } => function.branches.iter().any(has_callbacks),
        Primitive::Jit { .. } | Primitive::Remat { .. } => prim.call_body().is_some_and(has_callbacks),
        // A pending rule has no Jaxpr yet, and runs nowhere until it is traced.
        Primitive::CustomJvpCall { function, .. } => {
            has_callbacks(&function.call) || function.traced_rule().is_ok_and(has_callbacks)
        }
        Primitive::CustomVjpCall { function } => {
            has_callbacks(&function.call)
                || function.traced_fwd().is_ok_and(has_callbacks)
                || function.traced_passes().is_ok_and(|(_, bwd)| has_callbacks(bwd))
        }
        Primitive::CustomVjpTangent { function } => function.traced_passes().is_ok_and(|(_, bwd)| has_callbacks(bwd)),
        _ => false,
    }
}

/// How deep loops may nest on the machine: the linker gives each level of loop registers of
/// its own (`compiler::link`), and the scalar unit has sixteen.
pub const MACHINE_LOOP_DEPTH: usize = 3;

/// Whether a lowered `jaxpr` (by [`crate::transform::lower_keeping_windows`]) runs on the
/// machine as one program (issue 28), its loops and branches run by the scalar unit and its
/// windows at computed indices moved by DMAs at computed addresses: it has one of those, its
/// loops nest at most [`MACHINE_LOOP_DEPTH`] deep, it calls back to the
/// host nowhere, and it returns no literal. (`compiler::link` compiles such a program.)
pub fn control_on_machine(jaxpr: &Jaxpr) -> bool {
    needs_linking(jaxpr) && linkable(jaxpr, 0) && jaxpr.outvars.iter().all(|a| matches!(a, Atom::Var(_)))
}

/// Whether `jaxpr` has a loop, a branch or a window at a computed index, in the Jaxprs its
/// equations hold too.
fn needs_linking(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| match &e.prim {
        prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => prim.call_body().is_some_and(needs_linking),
        _ => is_control(e) || is_window(e),
    })
}

/// Whether `eqn` is a dynamic slice or update at a computed index.
pub fn is_window(eqn: &crate::jaxpr::Eqn) -> bool {
    crate::transform::window_starts(&eqn.prim).is_some_and(|first| crate::transform::computed(&eqn.inputs[first..]))
}

/// Whether the linker can compile `jaxpr`, inside `depth` loops.
fn linkable(jaxpr: &Jaxpr, depth: usize) -> bool {
    jaxpr.eqns.iter().all(|e| match &e.prim {
        Primitive::While { function } => {
            depth < MACHINE_LOOP_DEPTH && linkable(&function.cond, depth + 1) && linkable(&function.body, depth + 1)
        }
        Primitive::Scan { function } => depth < MACHINE_LOOP_DEPTH && linkable(&function.body, depth + 1),
        Primitive::Cond { function } => function.branches.iter().all(|b| linkable(b, depth)),
        prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => {
            prim.call_body().is_some_and(|body| linkable(body, depth))
        }
        prim => !calls_back(prim),
    })
}

/// Runs `call` through `executor`: at once when it has no loop, branch or callback, or when
/// the executor runs its `while` loops on the machine; else by parts (see the module's
/// comment), stopping after `limit` iterations of all its loops together; `host` calls its
/// callbacks.
pub async fn run(
    executor: &mut dyn Executor,
    host: &mut dyn Host,
    limit: u64,
    mut call: ProgramCall,
) -> Result<Vec<Array>> {
    if !has_control_flow(&call.jaxpr) {
        return executor.execute(call).await;
    }
    // Custom derivatives' calls inlined (exposing loops inside them), every predicate one
    // boolean.
    if executor.runs_control() {
        let jaxpr = Rc::new(crate::transform::lower_keeping_windows(&call.jaxpr)?);
        if control_on_machine(&jaxpr) {
            call.jaxpr = jaxpr;
            call.max_trips = limit;
            return executor.execute(call).await;
        }
    }
    let jaxpr = Rc::new(crate::transform::lower(&call.jaxpr)?);
    let args = std::mem::take(&mut call.args);
    let mut parts = Parts { executor, host, call, iterations: 0, limit, shared: HashMap::new() };
    let name = parts.call.name.clone();
    parts.run(name, &jaxpr, args).await
}

/// What every part's call shares, and the loops' iterations so far.
struct Parts<'e> {
    executor: &'e mut dyn Executor,
    host: &'e mut dyn Host,
    /// The program being run (its name, precision, and the bytes uploaded for it, charged to
    /// the first part).
    call: ProgramCall,
    iterations: u64,
    limit: u64,
    /// Each loop body, condition and branch made shareable once, by its place in the lowered
    /// program (which lives as long as the run), so that every call of it hands the executor
    /// the same `Rc<Jaxpr>` (see `ProgramCall::jaxpr`): a branch in a loop's body is not
    /// cloned per step, nor a loop inside another per outer step.
    shared: HashMap<*const Jaxpr, Rc<Jaxpr>>,
}

impl Parts<'_> {
    /// Runs `jaxpr` on `args` (one per input): one program when it has no loop or branch, else
    /// part by part.
    fn run<'a>(
        &'a mut self,
        name: String,
        jaxpr: &'a Rc<Jaxpr>,
        args: Vec<Array>,
    ) -> LocalFuture<'a, Result<Vec<Array>>> {
        Box::pin(async move {
            if !jaxpr.eqns.is_empty() && !jaxpr.eqns.iter().any(is_control) {
                return self.execute(name, jaxpr.clone(), args).await;
            }
            let mut env: HashMap<Var, Array> = jaxpr.all_inputs().zip(args).collect();
            let read = |env: &HashMap<Var, Array>, a: &Atom| match a {
                Atom::Var(v) => env.get(v).cloned().ok_or_else(|| JaxError(format!("internal error: {v:?} unbound"))),
                Atom::Literal(l) => Ok(literal_array(l.value, &l.aval)),
            };
            if jaxpr.eqns.is_empty() {
                return jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
            }
            let last_read = last_reads(jaxpr);
            let alone = jaxpr.eqns.len() == 1;
            let (mut part, mut whiles, mut scans, mut conds) = (0, 0, 0, 0);
            let mut i = 0;
            while i < jaxpr.eqns.len() {
                let eqn = &jaxpr.eqns[i];
                let ins = || eqn.inputs.iter().map(|a| read(&env, a)).collect::<Result<Vec<_>>>();
                let outs = match &eqn.prim {
                    Primitive::While { function } => {
                        whiles += 1;
                        let name = if alone { name.clone() } else { format!("{name}/while{whiles}") };
                        Some(self.run_while(&name, function, ins()?).await?)
                    }
                    Primitive::Scan { function } => {
                        scans += 1;
                        let name = if alone { name.clone() } else { format!("{name}/scan{scans}") };
                        Some(self.run_scan(&name, function, ins()?).await?)
                    }
                    Primitive::Cond { function } => {
                        conds += 1;
                        let name = if alone { name.clone() } else { format!("{name}/cond{conds}") };
                        Some(self.run_cond(&name, function, ins()?).await?)
                    }
                    Primitive::Callback { function } => {
                        let read_later = eqn.outputs.iter().any(|v| last_read.contains_key(v));
                        if !read_later && !function.has_effect() {
                            i += 1;
                            continue;
                        }
                        Some(self.call_back(function, ins()?).await?)
                    }
                    _ => None,
                };
                if let Some(outs) = outs {
                    env.extend(eqn.outputs.iter().copied().zip(outs));
                    i += 1;
                    continue;
                }
                let end = (i..jaxpr.eqns.len()).find(|&j| is_control(&jaxpr.eqns[j])).unwrap_or(jaxpr.eqns.len());
                part += 1;
                let segment = straight_part(jaxpr, i..end, &last_read);
                let args = segment.invars.iter().map(|v| read(&env, &Atom::Var(*v))).collect::<Result<Vec<_>>>()?;
                if !segment.outvars.is_empty() {
                    let outvars: Vec<Var> = segment.outvars.iter().filter_map(var).collect();
                    let outs = self.execute(format!("{name}/part{part}"), Rc::new(segment), args).await?;
                    env.extend(outvars.into_iter().zip(outs));
                }
                i = end;
            }
            jaxpr.outvars.iter().map(|a| read(&env, a)).collect()
        })
    }

    /// The body once per row of the `xs`, a program run through the executor. With `unroll`
    /// k > 1, as XLA compiles it: a program of k steps (`body_unroll{k}`) called once per k
    /// rows, and the plain body for the rows left over.
    async fn run_scan(&mut self, name: &str, scan: &ScanLoop, operands: Vec<Array>) -> Result<Vec<Array>> {
        let [consts, carries, xs] = scan.split(&operands);
        let mut carries = carries.to_vec();
        self.iterations += scan.length as u64;
        if self.iterations > self.limit {
            return Err(JaxError(format!(
                "a scan of length {} takes this program's loops past {} iterations, the step budget (--max-steps)",
                scan.length, self.limit
            )));
        }
        let mut ys = ScanYs::new(scan);
        let k = scan.unroll.clamp(1, scan.length.max(1));
        let blocks = if k > 1 { scan.length / k } else { 0 };
        let block_body = if blocks > 0 { Some(Rc::new(unrolled(scan, k)?)) } else { None };
        let step_body = self.shared(&scan.body);
        let mut step = 0;
        while step < scan.length {
            let (first_row, rows, body, part) = match &block_body {
                Some(body) if step < blocks * k => {
                    // The block's rows: `step..step + k`, or their mirror image when reversed.
                    let first = if scan.reverse { scan.length - step - k } else { step };
                    (first, k, body, format!("{name}/body_unroll{k}"))
                }
                _ => (scan.row(step), 1, &step_body, format!("{name}/body")),
            };
            let xs: Vec<Array> =
                xs.iter().map(|x| if rows == 1 { x.row(first_row) } else { x.rows(first_row, rows) }).collect();
            let mut outs = self.run(part, body, [consts, &carries, &xs].concat()).await?;
            ys.put(first_row, rows, outs.drain(scan.carries..));
            carries = outs;
            step += rows;
        }
        Ok(carries.into_iter().chain(ys.stacked()?).collect())
    }

    /// `jaxpr`, a part of the lowered program, as the one `Rc` every call of it shares.
    fn shared(&mut self, jaxpr: &Jaxpr) -> Rc<Jaxpr> {
        self.shared.entry(jaxpr as *const Jaxpr).or_insert_with(|| Rc::new(jaxpr.clone())).clone()
    }

    /// The branch the index (the first operand) picks, a program run through the executor.
    async fn run_cond(&mut self, name: &str, c: &Branches, mut operands: Vec<Array>) -> Result<Vec<Array>> {
        let taken = c.taken(operands.remove(0).to_f64_vec()[0] as i64);
        let branch = self.shared(&c.branches[taken]);
        self.run(format!("{name}/branch{taken}"), &branch, operands).await
    }

    /// The body while the condition holds, each a program run through the executor.
    async fn run_while(&mut self, name: &str, w: &WhileLoop, operands: Vec<Array>) -> Result<Vec<Array>> {
        let [cond_consts, body_consts, carries] = w.split(&operands);
        let mut carries = carries.to_vec();
        let (cond, body) = (self.shared(&w.cond), self.shared(&w.body));
        loop {
            let predicate = self.run(format!("{name}/cond"), &cond, [cond_consts, &carries].concat()).await?;
            if predicate[0].to_f64_vec()[0] == 0.0 {
                return Ok(carries);
            }
            self.iterations += 1;
            if self.iterations > self.limit {
                return Err(endless_loop(self.limit));
            }
            carries = self.run(format!("{name}/body"), &body, [body_consts, &carries].concat()).await?;
        }
    }

    /// The host's call of a callback, its results checked against the types it declared.
    async fn call_back(&mut self, callback: &HostCallback, args: Vec<Array>) -> Result<Vec<Array>> {
        let results = self.host.call(callback, args).await?;
        let fits = results.len() == callback.results.len()
            && results
                .iter()
                .zip(&callback.results)
                .all(|(r, want)| r.aval.shape == want.shape && r.aval.dtype == want.dtype);
        if !fits {
            return Err(JaxError(format!(
                "internal error: {} returned other types than it declared",
                callback.primitive_name()
            )));
        }
        Ok(results)
    }

    async fn execute(&mut self, name: String, jaxpr: Rc<Jaxpr>, args: Vec<Array>) -> Result<Vec<Array>> {
        let call = ProgramCall {
            name,
            jaxpr,
            args,
            default_precision: self.call.default_precision,
            eager: false,
            host_to_device_bytes: std::mem::take(&mut self.call.host_to_device_bytes),
            max_trips: u64::MAX,
        };
        self.executor.execute(call).await
    }
}

/// Where each variable of `jaxpr` is last read: an equation's index, or `usize::MAX` for an
/// output.
pub fn last_reads(jaxpr: &Jaxpr) -> HashMap<Var, usize> {
    let mut last_read: HashMap<Var, usize> = HashMap::new();
    for (i, eqn) in jaxpr.eqns.iter().enumerate() {
        last_read.extend(eqn.inputs.iter().filter_map(var).map(|v| (v, i)));
    }
    last_read.extend(jaxpr.outvars.iter().filter_map(var).map(|v| (v, usize::MAX)));
    last_read
}

/// The equations `range` of `jaxpr` as a Jaxpr of their own: its inputs the variables they
/// read from earlier, its outputs those they define that are read later (`last_read`, from
/// [`last_reads`]).
pub fn straight_part(jaxpr: &Jaxpr, range: std::ops::Range<usize>, last_read: &HashMap<Var, usize>) -> Jaxpr {
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
    let used = invars.iter().copied().chain(defined);
    let types = used.map(|v| (v, jaxpr.aval(v).clone())).collect();
    Jaxpr { constvars: vec![], invars, eqns, outvars, types }
}

/// `k` steps of a scan's body as one Jaxpr: (closed-over values, carries, `k` rows of each
/// `xs`) -> (carries, `k` rows of each `ys`), the rows taken from the last back when the scan
/// is reversed.
fn unrolled(scan: &ScanLoop, k: usize) -> Result<Jaxpr> {
    let body = &scan.body;
    let mut b = Builder::new();
    let ins: Vec<Atom> = body
        .invars
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let aval = body.aval(v);
            b.input(if i < scan.consts + scan.carries { aval.clone() } else { crate::control::stacked(aval, k) })
        })
        .collect();
    let [consts, carries, blocks] = scan.split(&ins);
    let mut carries = carries.to_vec();
    let mut ys: Vec<Vec<Atom>> = vec![Vec::with_capacity(k); scan.ys()];
    for step in 0..k {
        let row = if scan.reverse { k - 1 - step } else { step };
        let mut xs = Vec::with_capacity(blocks.len());
        for block in blocks {
            let shape = b.shape(block);
            let (mut start, mut limit) = (vec![0; shape.len()], shape.clone());
            start[0] = row;
            limit[0] = row + 1;
            let sliced = b.bind1(
                Primitive::Slice { start_indices: start, limit_indices: limit, strides: None },
                std::slice::from_ref(block),
            )?;
            xs.push(b.reshape(&sliced, &shape[1..])?);
        }
        let mut outs = b.inline(body, &[consts, &carries, &xs].concat())?;
        for (column, y) in ys.iter_mut().zip(outs.drain(scan.carries..)) {
            let shape = [&[1], &b.shape(&y)[..]].concat();
            column.push(b.reshape(&y, &shape)?);
        }
        carries = outs;
    }
    let mut outs = carries;
    for mut column in ys {
        if scan.reverse {
            column.reverse();
        }
        outs.push(b.bind1(Primitive::Concatenate { dimension: 0 }, &column)?);
    }
    Ok(b.finish(outs))
}

fn is_control(eqn: &crate::jaxpr::Eqn) -> bool {
    matches!(
        eqn.prim,
        Primitive::While { .. } | Primitive::Scan { .. } | Primitive::Cond { .. } | Primitive::Callback { .. }
    )
}

fn var(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }
}
