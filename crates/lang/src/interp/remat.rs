//! `jax.checkpoint` (`jax.remat`), `jax.checkpoint_policies` and `checkpoint_name`: a
//! checkpointed function is traced where it is called and staged as one `remat2` equation
//! (`jaxlite::Remat`), whose rules decide what reverse mode keeps and what it computes again;
//! outside any trace its equations run one by one, as JAX's `remat_impl` runs them.

use super::builtins::{arity, no_more_kwargs, take_kwarg};
use super::jax::{int_list_arg, CallArgs};
use super::tracer_errors::TracedFor;
use super::value::{repr, Native, Value};
use super::{err, unsupported, Interp, R};
use jaxlite::{Primitive, Remat, RematPolicy, Tensor};
use std::rc::Rc;

/// `jax.checkpoint(f, policy=..., prevent_cse=..., static_argnums=...)`.
pub struct Checkpointed {
    pub func: Value,
    pub policy: RematPolicy,
    pub prevent_cse: bool,
    /// As given: a negative one counts from the end of each call's arguments.
    pub static_argnums: Vec<i64>,
}

/// `jax.checkpoint_policies`' functions that make a policy (`save_only_these_names('a')`).
pub(super) const POLICY_FACTORIES: &[&str] = &[
    "save_only_these_names",
    "save_any_names_but_these",
    "save_anything_except_these_names",
    "save_from_both_policies",
];

/// `jax.checkpoint_policies.NAME`.
pub(super) fn policy_attr(name: &str) -> Option<R<Value>> {
    let policy = match name {
        "everything_saveable" => RematPolicy::Everything,
        "nothing_saveable" => RematPolicy::Nothing,
        "dots_saveable" | "checkpoint_dots" => RematPolicy::Dots { only_if_no_batch_dims: false },
        "dots_with_no_batch_dims_saveable" | "checkpoint_dots_with_no_batch_dims" => {
            RematPolicy::Dots { only_if_no_batch_dims: true }
        }
        "offload_dot_with_no_batch_dims" | "save_and_offload_only_these_names" => {
            return Some(unsupported(format!("jax.checkpoint_policies.{name} (offloading residuals to host memory)")))
        }
        _ => {
            let factory = POLICY_FACTORIES.iter().find(|f| **f == name)?;
            return Some(Ok(Value::native(Native::Jax(factory))));
        }
    };
    Some(Ok(Value::native(Native::RematPolicy(policy))))
}

/// A call of one of `POLICY_FACTORIES`.
pub(super) fn make_policy(name: &str, args: &[Value], kwargs: &[(String, Value)]) -> R<Value> {
    no_more_kwargs(name, kwargs)?;
    let names = || -> R<Vec<String>> {
        args.iter()
            .map(|a| match a {
                Value::Str(s) => Ok(s.to_string()),
                other => err(format!("{name}: a checkpoint name is a string, got {}", repr(other))),
            })
            .collect()
    };
    let policy = match name {
        "save_only_these_names" => RematPolicy::OnlyNames(names()?),
        "save_any_names_but_these" => RematPolicy::AnyNamesBut(names()?),
        // JAX 0.10's returns a policy saving everything, whatever the names.
        "save_anything_except_these_names" => {
            names()?;
            RematPolicy::AnythingExcept
        }
        _ => {
            arity(name, args, 2, 2)?;
            RematPolicy::Either(Box::new(policy_arg(name, &args[0])?), Box::new(policy_arg(name, &args[1])?))
        }
    };
    Ok(Value::native(Native::RematPolicy(policy)))
}

fn policy_arg(name: &str, v: &Value) -> R<RematPolicy> {
    match v {
        Value::None => Ok(RematPolicy::Unset),
        Value::Native(n) => match &**n {
            Native::RematPolicy(p) => Ok(p.clone()),
            _ => policy_error(name, v),
        },
        _ => policy_error(name, v),
    }
}

fn policy_error<T>(name: &str, v: &Value) -> R<T> {
    // A policy written in Python would be called with JAX's primitives, which the playground
    // does not have as Python objects.
    unsupported(format!("{name}: a checkpoint policy that is not one of jax.checkpoint_policies' ({})", repr(v)))
}

impl Interp<'_, '_> {
    /// `jax.checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=())`.
    pub(super) fn checkpoint(&mut self, name: &str, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> R<Value> {
        let static_argnums = int_list_arg("static_argnums", take_kwarg(&mut kwargs, "static_argnums"))?;
        // Per argument in a tuple, as JAX allows; it changes how XLA may merge recomputations,
        // which the emulator's compiler never does, so only its type matters here.
        let prevent_cse = match take_kwarg(&mut kwargs, "prevent_cse") {
            None => true,
            Some(Value::Bool(b)) => b,
            Some(Value::Tuple(t)) if t.iter().all(|v| matches!(v, Value::Bool(_))) => {
                t.iter().any(|v| matches!(v, Value::Bool(true)))
            }
            Some(v) => {
                return super::type_err(format!(
                    "prevent_cse must be a bool or tuple of bools, got type(prevent_cse)=<class '{}'>",
                    v.type_name()
                ))
            }
        };
        let policy = match take_kwarg(&mut kwargs, "policy") {
            None => RematPolicy::Unset,
            Some(v) => policy_arg(name, &v)?,
        };
        no_more_kwargs(name, &kwargs)?;
        arity(name, &args, 1, 1)?;
        if !self.is_callable(&args[0]) {
            return err(format!("Expected a callable value, got {}", repr(&args[0])));
        }
        let func = args.into_iter().next().unwrap_or(Value::None);
        Ok(Value::native(Native::Checkpointed(Checkpointed { func, policy, prevent_cse, static_argnums })))
    }

    /// A checkpointed function called: traced for its arguments' types (its static ones as
    /// they are), then one `remat2` equation inside a trace, or its equations run one by one
    /// outside.
    pub(super) async fn call_checkpointed(
        &mut self,
        c: &Checkpointed,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let n = args.len() as i64;
        if c.static_argnums.iter().any(|&i| i < -n || i >= n) {
            return super::value_err(format!(
                "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can only take integer values greater \
                 than or equal to `-len(args)` and less than `len(args)`, but got ({},), while `len(args)` = {n}",
                c.static_argnums.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            ));
        }
        let static_argnums: Vec<usize> =
            c.static_argnums.iter().map(|&i| (if i < 0 { i + n } else { i }) as usize).collect();
        let call: CallArgs = self.jit_arguments(args, kwargs, |i| static_argnums.contains(&i), |_| false).await?;
        // JAX caches a checkpointed function's traces by the function and the arguments'
        // types, whatever the policy: a second `jax.checkpoint` of it reuses the first trace.
        let cache = self.jit_cache(&c.func, "<checkpoint>", &static_argnums, &[]);
        let key = self.jit_key(&call);
        let cached = cache.borrow().traces.get(&key).cloned();
        let compiled = match cached {
            Some(compiled) => compiled,
            None => {
                let compiled = Rc::new(self.trace_nested(&c.func, &call, TracedFor::Named("checkpoint")).await?);
                if compiled.captured.is_empty() {
                    cache.borrow_mut().traces.insert(key, compiled.clone());
                }
                compiled
            }
        };
        if !compiled.refs.is_empty() {
            return unsupported("jax.checkpoint of a function that reads or writes a jax.new_ref");
        }
        // JAX's checkpoint has no constants of its own: what the function closed over leads
        // its operands.
        let mut body = compiled.closed.jaxpr.clone();
        let mut invars = std::mem::take(&mut body.constvars);
        invars.append(&mut body.invars);
        body.invars = invars;
        let mut inputs: Vec<Tensor> = compiled.closed.consts.iter().cloned().map(Tensor::from).collect();
        inputs.extend(compiled.captured.iter().cloned());
        inputs.extend(call.leaves);
        let outs = if self.ctx.is_tracing() {
            let function =
                Rc::new(Remat { body, policy: c.policy.clone(), prevent_cse: c.prevent_cse, differentiated: false });
            self.ctx.bind(Primitive::Remat { function }, &inputs).await?
        } else {
            self.apply_jaxpr(&body, &inputs).await?
        };
        self.unflatten_tensors(&compiled.out_tree, outs).await
    }

    /// `checkpoint_name(x, name)` on one leaf: inside a trace a `name` equation (what a
    /// policy's names select), outside the value itself, as JAX's `name_p` evaluates.
    pub(super) async fn checkpoint_name(&mut self, args: Vec<Value>) -> R<Value> {
        let [x, Value::Str(name)] = &args[..] else {
            return err("checkpoint_name(x, name): name must be a string");
        };
        if !self.ctx.is_tracing() {
            return Ok(x.clone());
        }
        let t = self.to_tensor(x)?;
        let out = self.ctx.bind(Primitive::Name { name: name.to_string() }, &[t]).await?;
        Ok(Value::of_tensor(out.into_iter().next().expect("name has one output")))
    }
}
