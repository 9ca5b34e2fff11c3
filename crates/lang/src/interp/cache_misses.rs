//! `jax.config.update("jax_explain_cache_misses", True)`: each time a jitted function of the
//! script is traced again, why, written to standard error as JAX logs it. A jit cache keeps
//! every key it has traced (`SeenKey`); a miss is compared with each of them, as JAX's
//! `pe.explain` compares tracing cache keys, and the closest is reported: a different config
//! (the matmul precision), then a different argument structure (every place the pytrees
//! differ, in JAX's `equality_errors` words), then different argument types.

use super::jax::{CallArgs, Tree};
use super::tracer_errors::{arg_names, TraceSite, TracedFor};
use super::value::{repr, Jitted, Value};
use super::{Interp, R};
use jaxlite::{Aval, Precision};

/// What one traced call's cache key was made of.
pub struct SeenKey {
    /// The input pytree as JAX builds it: `(args, kwargs)`, a static argument a `Static` node.
    input: Node,
    /// The leaves' types, in order; a ref passed in is a leaf of type `Ref{...}`.
    types: Vec<LeafType>,
    precision: Precision,
}

#[derive(PartialEq)]
struct LeafType {
    aval: Aval,
    is_ref: bool,
}

impl SeenKey {
    pub(super) fn of(call: &CallArgs, precision: Precision) -> SeenKey {
        let mut args = Vec::with_capacity(call.args.len());
        let mut types = Vec::new();
        let mut leaves = call.types.iter();
        for (a, tree) in call.args.iter().zip(&call.trees) {
            match (tree, super::refs::ref_cell(a)) {
                (Some(t), _) => {
                    types.extend(
                        leaves.by_ref().take(t.num_leaves()).map(|aval| LeafType { aval: aval.clone(), is_ref: false }),
                    );
                    args.push(Node::of(t));
                }
                (None, Some((_, cell))) => {
                    types.push(LeafType { aval: cell.borrow().aval().clone(), is_ref: true });
                    args.push(Node::Leaf);
                }
                (None, None) => args.push(Node::Static(repr(a))),
            }
        }
        let kwargs = args.split_off(args.len() - call.keywords.len());
        let kwargs = Node::Dict(call.keywords.iter().map(|k| format!("'{k}'")).zip(kwargs).collect());
        SeenKey { input: Node::Tuple(vec![Node::Tuple(args), kwargs]), types, precision }
    }
}

/// A pytree as JAX's structural comparison sees it.
enum Node {
    Leaf,
    None,
    /// A static argument, by its value's repr.
    Static(String),
    List(Vec<Node>),
    Tuple(Vec<Node>),
    /// Keys as their reprs, sorted (how JAX orders a dict's children).
    Dict(Vec<(String, Node)>),
    /// A namedtuple (children by field, `.a`) or a registered class (by index, with its
    /// auxiliary data's repr as metadata).
    Class(String, Option<String>, Vec<(String, Node)>),
}

impl Node {
    fn of(tree: &Tree) -> Node {
        match tree {
            Tree::Leaf => Node::Leaf,
            Tree::None => Node::None,
            Tree::List(items) => Node::List(items.iter().map(Node::of).collect()),
            Tree::Tuple(items) => Node::Tuple(items.iter().map(Node::of).collect()),
            Tree::Dict(items) => Node::Dict(items.iter().map(|(k, t)| (repr(k), Node::of(t))).collect()),
            Tree::Named(class, items) => Node::Class(
                class.name.clone(),
                None,
                namedtuple_fields(class, items.len()).into_iter().zip(items.iter().map(Node::of)).collect(),
            ),
            Tree::Custom(class, _, aux, items) => Node::Class(
                class.name.clone(),
                Some(repr(aux)),
                items.iter().enumerate().map(|(i, t)| (format!("[{i}]"), Node::of(t))).collect(),
            ),
        }
    }

    /// The node's Python type as JAX prints it (`str(type(x))`; a leaf is "pytree leaf").
    fn type_text(&self) -> String {
        match self {
            Node::Leaf => "pytree leaf".into(),
            Node::None => "<class 'NoneType'>".into(),
            Node::Static(_) => "<class 'jax._src.tree_util.Static'>".into(),
            Node::List(_) => "<class 'list'>".into(),
            Node::Tuple(_) => "<class 'tuple'>".into(),
            Node::Dict(_) => "<class 'dict'>".into(),
            Node::Class(name, ..) => format!("<class '__main__.{name}'>"),
        }
    }

    /// Its children, each with the key-path step that reaches it.
    fn children(&self) -> Vec<(String, &Node)> {
        match self {
            Node::Leaf | Node::None | Node::Static(_) => vec![],
            Node::List(items) | Node::Tuple(items) => {
                items.iter().enumerate().map(|(i, n)| (format!("[{i}]"), n)).collect()
            }
            Node::Dict(items) => items.iter().map(|(k, n)| (format!("[{k}]"), n)).collect(),
            Node::Class(_, _, items) => items.iter().map(|(k, n)| (k.clone(), n)).collect(),
        }
    }

    /// What JAX compares besides the children: a dict's keys, a static value, a registered
    /// class's auxiliary data.
    fn metadata(&self) -> Option<String> {
        match self {
            Node::Dict(items) => Some(match items.len() {
                1 => format!("({},)", items[0].0),
                _ => format!("({})", items.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")),
            }),
            Node::Static(text) => Some(format!("Static(val={text})")),
            Node::Class(_, aux, _) => aux.clone(),
            _ => None,
        }
    }
}

/// The field names of a namedtuple class as key-path steps (`.a`), or indices where the class
/// does not say.
fn namedtuple_fields(class: &std::rc::Rc<super::objects::Class>, n: usize) -> Vec<String> {
    let fields = match class.lookup("_fields") {
        Some(Value::Tuple(names)) => names.iter().map(|v| format!(".{}", super::value::to_str(v))).collect(),
        _ => vec![],
    };
    if fields.len() == n {
        fields
    } else {
        (0..n).map(|i| format!("[{i}]")).collect()
    }
}

/// Every place two pytrees differ, as JAX's `equality_errors`: (key path, this, that, why);
/// below a difference nothing more is compared.
fn equality_errors(path: &str, x: &Node, y: &Node, out: &mut Vec<String>) {
    if matches!(x, Node::Leaf) && matches!(y, Node::Leaf) {
        return;
    }
    let mut report = |this: String, that: String, why: String| {
        out.push(format!("  * at input path {path}, now {this} and before {that}, so {why}"));
    };
    if x.type_text() != y.type_text() {
        return report(x.type_text(), y.type_text(), "their Python types differ".into());
    }
    let (xs, ys) = (x.children(), y.children());
    if let (Node::List(_) | Node::Tuple(_), true) = (x, xs.len() != ys.len()) {
        let kind = if matches!(x, Node::List(_)) { "list" } else { "tuple" };
        return report(
            format!("{kind} of length {}", xs.len()),
            format!("{kind} of length {}", ys.len()),
            "the lengths do not match".into(),
        );
    }
    if xs.len() != ys.len() {
        let count = |n: usize| format!("{} with {n} child{}", x.type_text(), if n > 1 { "ren" } else { "" });
        let mut why = "the numbers of children do not match".to_string();
        if let (Node::Dict(p), Node::Dict(q)) = (x, y) {
            let only = |p: &[(String, Node)], q: &[(String, Node)]| -> Vec<String> {
                p.iter().filter(|(k, _)| !q.iter().any(|(l, _)| l == k)).map(|(k, _)| k.clone()).collect()
            };
            let diff = [only(p, q), only(q, p)].concat();
            if !diff.is_empty() {
                why.push_str(&format!(", with the symmetric difference of key sets: {{{}}}", diff.join(" ")));
            }
        }
        return report(count(xs.len()), count(ys.len()), why);
    }
    if x.metadata() != y.metadata() {
        let with = |u: &Node| format!("{} with pytree metadata {}", u.type_text(), u.metadata().unwrap_or_default());
        return report(with(x), with(y), "the pytree node metadata does not match".into());
    }
    for ((step, p), (_, q)) in xs.iter().zip(&ys) {
        equality_errors(&format!("{path}{step}"), p, q, out);
    }
}

/// A type as JAX's `str_short(True)` writes it, with the sharding JAX adds where the ranks
/// (so the shardings) differ, and the weak type where that differs; a ref's as `Ref{...}`.
fn type_texts(new: &LeafType, old: &LeafType) -> (String, String) {
    if new.is_ref || old.is_ref {
        let text = |t: &LeafType| if t.is_ref { format!("Ref{{{}}}", t.aval.short()) } else { t.aval.short() };
        return (text(new), text(old));
    }
    let (new, old) = (&new.aval, &old.aval);
    let (mut a, mut b) = (new.short(), old.short());
    if new.shape.len() != old.shape.len() {
        a.push_str("({})");
        b.push_str("({})");
    }
    if new.weak_type != old.weak_type {
        a.push_str(&format!("{{weak_type={}}}", if new.weak_type { "True" } else { "False" }));
        b.push_str(&format!("{{weak_type={}}}", if old.weak_type { "True" } else { "False" }));
    }
    (a, b)
}

/// The matmul precision as JAX's config holds it.
fn precision_text(p: Precision) -> &'static str {
    match p {
        Precision::Default => "None",
        Precision::High => "high",
        Precision::Highest => "highest",
    }
}

/// How far `new` is from `old`: (severity, number of differences, explanation), compared as
/// JAX compares them (the least wins).
fn difference(new: &SeenKey, old: &SeenKey, names: &[String]) -> (u8, usize, String) {
    if new.precision != old.precision {
        return (
            0,
            1,
            format!(
                "Tracing context doesn't match, e.g. due to config or context manager.\n  * jax_default_matmul_precision \
                 differs: now {} and before {}",
                precision_text(new.precision),
                precision_text(old.precision)
            ),
        );
    }
    let mut trees = Vec::new();
    equality_errors("", &new.input, &old.input, &mut trees);
    if !trees.is_empty() {
        return (1, trees.len(), format!("different input pytree:\n{}", trees.join("\n")));
    }
    let mut types = Vec::new();
    let mut weak_differs = false;
    for ((name, a), b) in names.iter().zip(&new.types).zip(&old.types) {
        if a != b || a.aval.weak_type != b.aval.weak_type {
            weak_differs |= !a.is_ref && a.aval.weak_type != b.aval.weak_type;
            let (now, before) = type_texts(a, b);
            types.push(format!("  * at {name}, now {now} and before {before}"));
        }
    }
    if !types.is_empty() {
        let mut text = format!("different input types:\n{}", types.join("\n"));
        if weak_differs {
            text.push_str("https://docs.jax.dev/en/latest/type_promotion.html#weak-types");
        }
        return (3, types.len(), text);
    }
    (4, 0, "cache miss explanation unavailable".into())
}

/// The script function under a jitted callable, for its name and place.
fn script_function(f: &Value) -> Option<&super::value::Function> {
    match f {
        Value::Function(func) => Some(func),
        Value::BoundMethod(m) => script_function(&m.func),
        _ => None,
    }
}

impl Interp<'_, '_> {
    /// Notes that `j` is traced for `call`, its cache having no trace for it; and, where the
    /// script asked, writes why to standard error.
    pub(super) fn note_cache_miss(&mut self, j: &Jitted, call: &CallArgs) -> R<()> {
        let key = SeenKey::of(call, self.ctx.default_precision);
        let explain = self.explain_cache_misses;
        // Only the script's own functions: JAX's library functions are not explained.
        let function = script_function(&j.func).filter(|f| f.def.span.file == 0);
        let (Some(function), true) = (function, explain) else {
            j.cache.borrow_mut().seen.push(key);
            return Ok(());
        };
        let def = &function.def;
        // A decorated function's code starts at its first decorator, as CPython's does.
        let line = def.decorators.iter().map(|d| d.span.line).chain([def.span.line]).min().unwrap_or(def.span.line);
        let defined = format!(" defined at <script>:{line}");
        let site = match self.call_site {
            Some(s) if s.col > 1 => format!("<script>:{}:{}", s.line, s.col - 1),
            Some(s) => format!("<script>:{}", s.line),
            None => "<script>".into(),
        };
        let site = format!("{site} ({})", self.frame);
        let mut text = format!("TRACING CACHE MISS at {site}:\n");
        let closest = {
            let names = arg_names(&TraceSite {
                trace_id: None,
                function: j.func.clone(),
                purpose: TracedFor::Named("jit"),
                // A ref passed in is a leaf, as JAX names its argument.
                args: call
                    .args
                    .iter()
                    .zip(&call.trees)
                    .map(|(a, t)| t.clone().or_else(|| super::refs::ref_cell(a).map(|_| Tree::Leaf)))
                    .collect(),
                keywords: call.keywords.clone(),
            });
            j.cache.borrow().seen.iter().map(|old| difference(&key, old, &names)).min()
        };
        match closest {
            None => {
                let id = super::classes::identity_hash(&j.func) << 4;
                text.push_str(&format!("  never seen function:\n    {} id={id}{defined}\n", def.name));
                if !self.cache_miss_sites.insert(site) {
                    text.push_str(
                        "  but seen another function defined on the same line; maybe the function is\n  being \
                         re-defined repeatedly, preventing caching?\n",
                    );
                }
            }
            Some((_, _, why)) => text.push_str(&format!(
                "  for {}{defined}\n  all previously seen cache keys differ. For the closest previous key:\n  {why}\n",
                def.name
            )),
        }
        j.cache.borrow_mut().seen.push(key);
        self.write_stderr(&text)
    }
}
