//! JAX's errors about tracers, word for word: a traced value where Python needs a concrete one
//! (`if x > 0:` inside `jit`, `int(x)`, `jnp.zeros(n)` with a traced `n`, NumPy on a tracer).
//!
//! JAX ends each such message with where the value came from: "The error occurred while
//! tracing the function f at <script>:8 for jit. This concrete value was not available in
//! Python because it depends on the value of the argument x." To say that, every trace the
//! interpreter begins records a `TraceSite` (the function, what traces it, its arguments'
//! trees), and an error about a tracer is raised with a mark where the origin goes. The
//! origin is written in (`Interp::write_origins`) when the error leaves the traced function,
//! or is caught inside it, while the trace still exists: JAX's `find_progenitors` walks the
//! trace's equations back from the tracer to the arguments it depends on
//! (`jaxlite::Context::progenitors`), and the function's signature names them.

use super::exceptions::RtError;
use super::jax::Tree;
use super::objects::Builtin;
use super::pytrees::{namedtuple_steps, KeyStep, Node};
use super::value::{aval_text, repr, Native, Value};
use super::Interp;
use jaxlite::trace::Tracer;
use std::rc::Rc;

/// Where a tracer's origin goes in a message (a character no message otherwise holds).
pub(super) const ORIGIN: char = '\u{E000}';

const ERRORS_PAGE: &str = "https://docs.jax.dev/en/latest/errors.html#jax.errors.";

/// What a trace is for, as JAX's messages name it (`jit`, `scan`, `cond`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TracedFor {
    Named(&'static str),
    /// `vmap`: JAX's batch tracers say where they were made, not which argument they are.
    Vmap,
    /// A transformation that differentiates (`grad`, `jvp`, `vjp`, ...): outside `jit` its
    /// tracers have values and JAX's messages give no origin; inside, JAX's value is the
    /// enclosing trace's.
    Differentiation,
    /// A custom derivative's rule or pass (`defjvp`'s rule, `fwd`, `bwd`). JAX runs one in place
    /// of the function, one level out from the differentiation it serves, so it uses up one
    /// enclosing differentiation (see `Interp::differentiations_at_call`).
    CustomRule,
    /// A custom derivative's function itself, traced where it is called (as inline code).
    CustomFunction,
}

impl TracedFor {
    /// Whether the trace is part of differentiating: its tracers are, in JAX's messages,
    /// those of the enclosing `jit` or `vmap`.
    pub(super) fn differentiates(self) -> bool {
        matches!(self, TracedFor::Differentiation | TracedFor::CustomRule | TracedFor::CustomFunction)
    }
}

/// A trace in progress, as its errors describe it.
pub(super) struct TraceSite {
    /// The trace's id (`jaxlite::Tracer::trace_id` of its tracers).
    pub trace_id: Option<u64>,
    pub function: Value,
    pub purpose: TracedFor,
    /// The function's arguments in order: positional, then `keywords.len()` passed by those
    /// names; each traced one with its tree, a static one as `None`.
    pub args: Vec<Option<Tree>>,
    pub keywords: Vec<String>,
}

/// `TracerBoolConversionError`: `if`, `while`, `and`, `bool()` on a tracer.
pub(super) fn bool_conversion(t: &Rc<Tracer>) -> RtError {
    about(
        Builtin::TracerBoolConversionError,
        format!("Attempted boolean conversion of traced array with shape {}.{ORIGIN}", aval_text(&t.aval)),
        vec![t.clone()],
    )
}

/// Where Python needs `t`'s value: `to` is what wanted it (`float`, `int`, `complex` as
/// conversions; `index` for `__index__`: a list index, a range bound; `item` and `tolist` as
/// the methods).
pub(super) fn concretization(t: &Rc<Tracer>, to: &str) -> RtError {
    let aval = aval_text(&t.aval);
    let abstract_value =
        format!("Abstract tracer value encountered where concrete value is expected: traced array with shape {aval}");
    let once = vec![t.clone()];
    match to {
        "index" => about(
            Builtin::TracerIntegerConversionError,
            format!("The __index__() method was called on traced array with shape {aval}{ORIGIN}"),
            once,
        ),
        "item" => about(
            Builtin::ConcretizationTypeError,
            format!("{abstract_value}\nThis occurred in the item() method of jax.Array{ORIGIN}\n"),
            once,
        ),
        // JAX writes the origin twice here: once in the method's context, once after it.
        "tolist" => about(
            Builtin::ConcretizationTypeError,
            format!(
                "{abstract_value}\nThe tolist() method was called on traced array with shape {aval}.{ORIGIN}{ORIGIN}\n"
            ),
            vec![t.clone(), t.clone()],
        ),
        conversion => about(
            Builtin::ConcretizationTypeError,
            format!(
                "{abstract_value}\nThe problem arose with the `{conversion}` function. If trying to convert the data \
                 type of a value, try using `x.astype({conversion})` or `jnp.array(x, {conversion})` instead.{ORIGIN}\n"
            ),
            once,
        ),
    }
}

/// `TracerArrayConversionError`: NumPy given a tracer.
pub(super) fn array_conversion(t: &Rc<Tracer>) -> RtError {
    about(
        Builtin::TracerArrayConversionError,
        format!("{}{ORIGIN}", jaxlite::trace::tracer_conversion_message(&t.aval)),
        vec![t.clone()],
    )
}

/// A shape with traced entries (`jnp.zeros(n)` for a traced `n`): JAX's `TypeError`, with the
/// origin of each traced entry.
pub(super) fn traced_shape(dims: &[Value]) -> RtError {
    let shown: Vec<String> = dims.iter().map(repr).collect();
    let tuple = if let [one] = &shown[..] { format!("({one},)") } else { format!("({})", shown.join(", ")) };
    let tracers: Vec<Rc<Tracer>> = dims.iter().filter_map(traced).cloned().collect();
    let mut message = format!(
        "Shapes must be 1D sequences of concrete values of integer type, got {tuple}.\nIf using `jit`, try using \
         `static_argnums` or applying `jit` to smaller subfunctions."
    );
    message.extend(std::iter::repeat_n(ORIGIN, tracers.len()));
    let mut e = RtError::new(message);
    e.tracers = tracers;
    e
}

/// The tracer `v` is, if it is one.
pub(super) fn traced(v: &Value) -> Option<&Rc<Tracer>> {
    match v {
        Value::Array(jaxlite::Tensor::Traced(t)) => Some(t),
        _ => None,
    }
}

/// An error of `kind` whose message has an `ORIGIN` mark for each of `tracers`, in order;
/// JAX's errors end with a link to their page.
fn about(kind: Builtin, message: String, tracers: Vec<Rc<Tracer>>) -> RtError {
    let mut e = RtError::of(kind, format!("{message}\nSee {ERRORS_PAGE}{}", kind.name()));
    e.tracers = tracers;
    e
}

impl Interp<'_, '_> {
    /// Writes the origin of each tracer `e` is about where its mark is (JAX's
    /// `Tracer._origin_msg`), while the traces still exist.
    pub(super) fn write_origins(&self, e: &mut RtError) {
        if e.tracers.is_empty() {
            return;
        }
        let tracers = std::mem::take(&mut e.tracers);
        let mut origins = tracers.iter().map(|t| self.origin(t));
        let mut message = String::with_capacity(e.message.len());
        for c in e.message.chars() {
            if c == ORIGIN {
                message.push_str(&origins.next().unwrap_or_default());
            } else {
                message.push(c);
            }
        }
        e.message = message;
    }

    fn origin(&self, t: &Tracer) -> String {
        // A value being differentiated outside jit: JAX's JVP tracers say nothing more.
        if self.ctx.has_value(t) {
            return String::new();
        }
        let Some(at) = self.tracing.iter().rposition(|s| s.trace_id == Some(t.trace_id)) else {
            return String::new();
        };
        let site = &self.tracing[at];
        let Some(source) = source_info(&site.function) else { return String::new() };
        // A differentiation's tracers inside jit or vmap are, in JAX, the enclosing trace's.
        let enclosing = self.tracing[..=at].iter().rev().find(|s| !s.purpose.differentiates());
        let purpose = match enclosing {
            Some(TraceSite { purpose: TracedFor::Named(name), .. }) => name,
            Some(vmapped) => {
                let vmapped = source_info(&vmapped.function).unwrap_or(source);
                return format!("\nThis BatchTracer was created by vmap of the function {vmapped}.");
            }
            None => return String::new(),
        };
        let mut origin = format!("\nThe error occurred while tracing the function {source} for {purpose}. ");
        let positions = self.ctx.progenitors(t).unwrap_or_default();
        if positions.is_empty() {
            return origin;
        }
        let names = arg_names(site);
        let Some(named): Option<Vec<&str>> = positions.iter().map(|&i| names.get(i).map(String::as_str)).collect()
        else {
            return String::new();
        };
        let listed = match &named[..] {
            [one] => format!("the argument {one}"),
            [a, b] => format!("the arguments {a} and {b}"),
            [rest @ .., last] => format!("the arguments {}, and {last}", rest.join(", ")),
            [] => unreachable!("positions is not empty"),
        };
        let plural = if named.len() > 1 { "s" } else { "" };
        origin.push_str(&format!(
            "This concrete value was not available in Python because it depends on the value{plural} of {listed}."
        ));
        origin
    }
}

/// `f at <script>:8`: the function's name and the line its definition starts on (its first
/// decorator's), as CPython's `co_firstlineno`; `<unknown>` for a callable object. `None` for
/// a function of the playground's own library, whose lines are not the script's.
fn source_info(f: &Value) -> Option<String> {
    match f {
        Value::Function(func) => {
            let def = &func.def;
            if def.span.file != 0 {
                return None;
            }
            let line = def.decorators.iter().map(|d| d.span.line).chain([def.span.line]).min().unwrap_or(def.span.line);
            Some(format!("{} at <script>:{line}", func.name.borrow()))
        }
        Value::Native(n) => match &**n {
            Native::Partial { func, .. } => source_info(func),
            Native::Jitted(j) => source_info(&j.func),
            Native::Checkpointed(c) => source_info(&c.func),
            Native::CustomJvp(c) => source_info(&c.func),
            Native::CustomVjp(c) => source_info(&c.func),
            _ => None,
        },
        Value::Instance(_) => Some("<unknown>".into()),
        _ => None,
    }
}

/// The parameters a call binds its arguments to: positional ones, the `*args` and `**kwargs`
/// names, and those taken only by keyword. `None` where the callable has no Python signature.
struct Signature {
    positional: Vec<String>,
    vararg: Option<String>,
    keyword_only: Vec<String>,
    kwarg: Option<String>,
}

fn signature(f: &Value) -> Option<Signature> {
    match f {
        Value::Function(func) => {
            let def = &func.def;
            Some(Signature {
                positional: def.params.iter().map(|p| p.name.clone()).collect(),
                vararg: def.vararg.clone(),
                keyword_only: def.keyword_only.iter().map(|p| p.name.clone()).collect(),
                kwarg: def.kwarg.clone(),
            })
        }
        Value::BoundMethod(m) => {
            let mut s = signature(&m.func)?;
            (!s.positional.is_empty()).then(|| s.positional.remove(0))?;
            Some(s)
        }
        Value::Native(n) => match &**n {
            Native::Partial { func, args, .. } => {
                let mut s = signature(func)?;
                s.positional.drain(..args.len().min(s.positional.len()));
                Some(s)
            }
            Native::Jitted(j) => signature(&j.func),
            Native::Checkpointed(c) => signature(&c.func),
            Native::CustomJvp(c) => signature(&c.func),
            Native::CustomVjp(c) => signature(&c.func),
            _ => None,
        },
        Value::Instance(i) => signature(&Value::BoundMethod(Rc::new(super::objects::BoundMethod {
            receiver: f.clone(),
            func: i.class.lookup("__call__")?,
        }))),
        _ => None,
    }
}

/// The name of each traced leaf of a site's arguments, as JAX's `_non_static_arg_names` gives
/// them: the parameter it is bound to and its path in the argument's tree (`x`, `p['a'][1]`,
/// `xs[1]`, `kw['q']`); `args[i]` and `kwargs['k']` where there is no signature.
pub(super) fn arg_names(site: &TraceSite) -> Vec<String> {
    let positional = site.args.len() - site.keywords.len();
    let sig = signature(&site.function);
    let mut names = Vec::new();
    for (i, tree) in site.args.iter().enumerate() {
        let Some(tree) = tree else { continue };
        let base = match (&sig, site.keywords.get(i.wrapping_sub(positional))) {
            (Some(s), None) if i < s.positional.len() => s.positional[i].clone(),
            (Some(s), None) => match &s.vararg {
                Some(v) => format!("{v}[{}]", i - s.positional.len()),
                None => format!("args[{i}]"),
            },
            (None, None) => format!("args[{i}]"),
            (Some(s), Some(k)) if s.positional.contains(k) || s.keyword_only.contains(k) => k.clone(),
            (Some(Signature { kwarg: Some(kw), .. }), Some(k)) => format!("{kw}['{k}']"),
            (_, Some(k)) => format!("kwargs['{k}']"),
        };
        leaf_paths(tree, &mut base.clone(), &mut names);
    }
    names
}

/// Each leaf of `tree` as `path` followed by its key path (`jax.tree_util.keystr`; a node
/// registered without keys by its child's index, as JAX's argument names clean it).
pub(super) fn leaf_paths(tree: &Tree, path: &mut String, out: &mut Vec<String>) {
    let steps: Vec<(KeyStep, &Tree)> = match tree {
        Tree::Leaf => return out.push(path.clone()),
        Tree::None => return,
        Tree::List(items) | Tree::Tuple(items) => {
            items.iter().enumerate().map(|(i, t)| (KeyStep::Sequence(i), t)).collect()
        }
        Tree::Dict(entries) => entries.iter().map(|(k, t)| (KeyStep::Dict(k.clone()), t)).collect(),
        Tree::Named(class, items) => namedtuple_steps(class, items.len()).into_iter().zip(items).collect(),
        Tree::Custom(_, node, _, children) => children
            .iter()
            .enumerate()
            .map(|(i, t)| match &**node {
                Node::Fields { data, .. } if i < data.len() => (KeyStep::Attr(data[i].clone()), t),
                _ => (KeyStep::Sequence(i), t),
            })
            .collect(),
    };
    for (step, t) in steps {
        let len = path.len();
        path.push_str(&step.keystr());
        leaf_paths(t, path, out);
        path.truncate(len);
    }
}

impl Interp<'_, '_> {
    /// Calls `f` in the trace just begun (`site.trace_id` is the innermost), so that errors
    /// about its tracers can say where they came from; what the call raises leaves with its
    /// origins written.
    pub(super) async fn call_in_trace(
        &mut self,
        site: TraceSite,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> super::R<Value> {
        let f = site.function.clone();
        self.begin_ref_log(&site.purpose, &args);
        self.tracing.push(site);
        let result = self.call(f, args, kwargs).await.map_err(|mut e| {
            self.write_origins(&mut e);
            e
        });
        self.tracing.pop();
        self.end_ref_log(result.is_ok());
        result
    }

    /// The site of a trace just begun: `function` called with `args` (traced ones with their
    /// trees), the last `keywords.len()` of them by those names.
    pub(super) fn trace_site(
        &self,
        function: &Value,
        purpose: TracedFor,
        args: Vec<Option<Tree>>,
        keywords: &[String],
    ) -> TraceSite {
        TraceSite {
            trace_id: self.ctx.current_trace_id(),
            function: function.clone(),
            purpose,
            args,
            keywords: keywords.to_vec(),
        }
    }
}
