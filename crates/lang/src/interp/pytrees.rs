//! The script's own classes as pytree nodes (`jax.tree_util.register_pytree_node`,
//! `register_pytree_node_class`, `register_pytree_with_keys` and its `_class` form,
//! `register_dataclass`, `register_static`), and the one tree walk every caller uses:
//! flattening (with `is_leaf=` and key paths), rebuilding, and `flatten_up_to` (the later trees
//! of `tree_map`). The key objects and `keystr` are Python (`crates/pylib/python/jax/tree.py`).
//!
//! JAX keeps its registry by type, so a subclass of a registered class is a leaf unless it is
//! registered too; the registry here is the run's (`Interp::pytree_nodes`).
//!
//! Every tree walk goes through `Interp::tree_of` and `Interp::unflatten_tree`, so registered
//! nodes pass through `jit`, `grad`, `vmap` and the `jax.tree` functions alike; it is async
//! because a node may run the script's flatten and unflatten functions (fields and static
//! nodes flatten and rebuild natively).

use super::jax::{namedtuple_items, sorted_entries, Tree};
use super::objects::{Builtin, Class, Instance};
use super::value::{repr, Value};
use super::{err, Interp, RtError, R};
use jaxlite::{LocalFuture, Tensor};
use std::rc::Rc;

/// How a registered class is flattened and rebuilt.
pub(crate) enum Node {
    /// `register_dataclass`: the data fields are the children, the meta fields' values (a
    /// tuple) the auxiliary data; rebuilt without calling `__init__`, as JAX does.
    Fields { data: Vec<String>, meta: Vec<String> },
    /// `register_static`: no children; the value is its own auxiliary data.
    Static,
    /// The script's functions: `flatten(x) -> (children, aux)`, or with keys
    /// `flatten_with_keys(x) -> (((key, child), …), aux)`, and `unflatten(aux, children)`.
    Functions { flatten: Option<Value>, flatten_with_keys: Option<Value>, unflatten: Value },
}

/// The classes registered in this run, each with how it flattens.
#[derive(Default)]
pub(crate) struct Registry {
    nodes: Vec<(Rc<Class>, Rc<Node>)>,
}

impl Registry {
    /// How instances of exactly `class` flatten, where it is registered.
    pub fn node_of(&self, class: &Rc<Class>) -> Option<Rc<Node>> {
        self.nodes.iter().find(|(c, _)| Rc::ptr_eq(c, class)).map(|(_, n)| n.clone())
    }

    fn register(&mut self, class: &Rc<Class>, node: Node) -> R<()> {
        if self.node_of(class).is_some() {
            return super::value_err(format!(
                "Duplicate custom PyTreeDef type registration for {}.",
                repr(&Value::Class(class.clone()))
            ));
        }
        self.nodes.push((class.clone(), Rc::new(node)));
        Ok(())
    }
}

/// An instance's attribute as stored in its `__dict__`.
fn attribute(v: &Value, name: &str) -> R<Value> {
    let Value::Instance(i) = v else { return err("a registered pytree node must be an instance") };
    let found = i.dict.borrow().get_str(name).cloned();
    found.ok_or_else(|| {
        RtError::of(Builtin::AttributeError, format!("'{}' object has no attribute '{name}'", i.class.name))
    })
}

/// An instance of `class` rebuilt from its fields' values, without calling `__init__`, as
/// JAX rebuilds a registered dataclass.
fn with_fields(class: &Rc<Class>, fields: impl Iterator<Item = (String, Value)>) -> Value {
    let instance = Instance::new(class.clone(), Value::None);
    {
        let mut dict = instance.dict.borrow_mut();
        for (name, value) in fields {
            dict.set_str(&name, value);
        }
    }
    Value::Instance(Rc::new(instance))
}

/// One step of a leaf's key path (JAX's `SequenceKey`, `DictKey`, `GetAttrKey`,
/// `FlattenedIndexKey`, or a key object a `flatten_with_keys` function gave).
#[derive(Clone)]
pub(super) enum KeyStep {
    Sequence(usize),
    Dict(Value),
    Attr(String),
    Flattened(usize),
    Given(Value),
}

impl KeyStep {
    /// As `jax.tree_util.keystr` writes it: `[0]`, `['b']`, `.w`.
    pub(super) fn keystr(&self) -> String {
        match self {
            KeyStep::Sequence(i) => format!("[{i}]"),
            KeyStep::Dict(k) | KeyStep::Given(k) => format!("[{}]", repr(k)),
            KeyStep::Attr(name) => format!(".{name}"),
            KeyStep::Flattened(i) => format!("[<flat index {i}>]"),
        }
    }

    /// As `jax._tree.key_path` reads it: `(kind, value)`.
    fn to_value(&self) -> Value {
        let pair = |kind: &str, v: Value| Value::tuple(vec![Value::str(kind), v]);
        match self {
            KeyStep::Sequence(i) => pair("sequence", Value::Int(*i as i64)),
            KeyStep::Dict(k) => pair("dict", k.clone()),
            KeyStep::Attr(name) => pair("attr", Value::str(name)),
            KeyStep::Flattened(i) => pair("flattened", Value::Int(*i as i64)),
            KeyStep::Given(k) => pair("given", k.clone()),
        }
    }
}

/// A node's auxiliary data, and its children each with its key step.
type NodeParts = (Value, Vec<(KeyStep, Value)>);

impl Interp<'_, '_> {
    /// `register_pytree_node` and the other registrations.
    pub(super) fn call_registration<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg =
                |i: usize, key: &str| super::builtins::take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let class_arg = arg(0, "nodetype")
                .or_else(|| arg(0, "cls"))
                .ok_or_else(|| RtError::new(format!("{name}() missing 1 required positional argument: 'nodetype'")))?;
            let Value::Class(class) = &class_arg else {
                return super::type_err(format!("{name}: expected a class, got {}", class_arg.type_name()));
            };
            let class = class.clone();
            match name {
                "register_pytree_node" | "register_pytree_with_keys" => {
                    let (first, unflatten) = (arg(1, "flatten_func"), arg(2, "unflatten_func"));
                    let first = first.or_else(|| arg(1, "flatten_with_keys"));
                    let third =
                        arg(3, if name == "register_pytree_node" { "flatten_with_keys_func" } else { "flatten_func" });
                    super::builtins::no_more_kwargs(name, &kwargs)?;
                    let (Some(first), Some(unflatten)) = (first, unflatten) else {
                        return super::type_err(format!(
                            "{name}() takes a class, a flatten function and an unflatten function"
                        ));
                    };
                    let node = if name == "register_pytree_node" {
                        Node::Functions { flatten: Some(first), flatten_with_keys: third, unflatten }
                    } else {
                        Node::Functions { flatten: third, flatten_with_keys: Some(first), unflatten }
                    };
                    self.pytree_nodes.register(&class, node)?;
                    Ok(Value::None)
                }
                "register_pytree_node_class" | "register_pytree_with_keys_class" => {
                    super::builtins::no_more_kwargs(name, &kwargs)?;
                    let method = |n: &str| class.lookup(n);
                    let unflatten = self.get_attr(&class_arg, "tree_unflatten").await?;
                    let node = if name == "register_pytree_node_class" {
                        let flatten = method("tree_flatten").ok_or_else(|| {
                            RtError::of(
                                Builtin::AttributeError,
                                format!("type object '{}' has no attribute 'tree_flatten'", class.name),
                            )
                        })?;
                        Node::Functions { flatten: Some(flatten), flatten_with_keys: None, unflatten }
                    } else {
                        let with_keys = method("tree_flatten_with_keys").ok_or_else(|| {
                            RtError::of(
                                Builtin::AttributeError,
                                format!("type object '{}' has no attribute 'tree_flatten_with_keys'", class.name),
                            )
                        })?;
                        Node::Functions {
                            flatten: method("tree_flatten"),
                            flatten_with_keys: Some(with_keys),
                            unflatten,
                        }
                    };
                    self.pytree_nodes.register(&class, node)?;
                    Ok(class_arg)
                }
                "register_static" => {
                    super::builtins::no_more_kwargs(name, &kwargs)?;
                    self.pytree_nodes.register(&class, Node::Static)?;
                    Ok(class_arg)
                }
                _ => {
                    let (data, meta) = (arg(1, "data_fields"), arg(2, "meta_fields"));
                    let _ = arg(3, "drop_fields");
                    super::builtins::no_more_kwargs(name, &kwargs)?;
                    let names = |v: Option<Value>, this: &mut Self| -> R<Option<Vec<String>>> {
                        match v {
                            None | Some(Value::None) => Ok(None),
                            Some(v) => this
                                .iterate(&v)?
                                .iter()
                                .map(|n| match n {
                                    Value::Str(s) => Ok(s.to_string()),
                                    other => super::type_err(format!(
                                        "field names must be strings, got {}",
                                        other.type_name()
                                    )),
                                })
                                .collect::<R<Vec<_>>>()
                                .map(Some),
                        }
                    };
                    let (data, meta) = (names(data, self)?, names(meta, self)?);
                    let (data, meta) = match (data, meta) {
                        (Some(d), Some(m)) => (d, m),
                        (None, None) => self.dataclass_fields(&class)?,
                        _ => {
                            return super::type_err(
                                "register_dataclass: data_fields and meta_fields must both be specified when either is specified.",
                            )
                        }
                    };
                    self.pytree_nodes.register(&class, Node::Fields { data, meta })?;
                    Ok(class_arg)
                }
            }
        })
    }

    /// A dataclass's fields as `register_dataclass` infers them: those marked
    /// `metadata=dict(static=True)` are meta fields, the others data.
    fn dataclass_fields(&self, class: &Rc<Class>) -> R<(Vec<String>, Vec<String>)> {
        let Some(Value::Dict(fields)) = class.lookup("__dataclass_fields__") else {
            return super::type_err(format!(
                "register_dataclass: data_fields and meta_fields are required when nodetype is not a dataclass. Got nodetype={}.",
                repr(&Value::Class(class.clone()))
            ));
        };
        let (mut data, mut meta) = (Vec::new(), Vec::new());
        for (key, field) in fields.borrow().entries.iter() {
            let Value::Str(name) = key else { continue };
            let is_static = match attribute(field, "metadata") {
                Ok(Value::Dict(m)) => m.borrow().get_str("static").is_some_and(|v| matches!(v, Value::Bool(true))),
                _ => false,
            };
            if is_static {
                meta.push(name.to_string());
            } else {
                data.push(name.to_string());
            }
        }
        Ok((data, meta))
    }

    /// The children (each with its key) and auxiliary data of `v`, an instance of a registered
    /// class, running the script's flatten function where it has one.
    fn node_children<'a>(&'a mut self, v: &'a Value, node: &'a Node) -> LocalFuture<'a, R<NodeParts>> {
        Box::pin(async move {
            let (flatten, flatten_with_keys) = match node {
                Node::Fields { data, meta } => {
                    let aux = Value::tuple(meta.iter().map(|m| attribute(v, m)).collect::<R<_>>()?);
                    let children =
                        data.iter().map(|d| Ok((KeyStep::Attr(d.clone()), attribute(v, d)?))).collect::<R<_>>()?;
                    return Ok((aux, children));
                }
                Node::Static => return Ok((v.clone(), Vec::new())),
                Node::Functions { flatten, flatten_with_keys, .. } => (flatten, flatten_with_keys),
            };
            let shape_error = |what: &str| {
                RtError::of(
                    Builtin::TypeError,
                    format!("the pytree {what} function of {} must return a pair (children, aux_data)", v.type_name()),
                )
            };
            if let (None, Some(with_keys)) = (flatten, flatten_with_keys) {
                let out = self.call(with_keys.clone(), vec![v.clone()], vec![]).await?;
                let pair = self.iterate(&out)?;
                let [pairs, aux] = pair.as_slice() else { return Err(shape_error("flatten_with_keys")) };
                let mut children = Vec::new();
                for item in self.iterate(pairs)? {
                    let kv = self.iterate(&item)?;
                    let [k, child] = kv.as_slice() else { return Err(shape_error("flatten_with_keys")) };
                    children.push((KeyStep::Given(k.clone()), child.clone()));
                }
                return Ok((aux.clone(), children));
            }
            let flatten = flatten.clone().unwrap_or(Value::None);
            let out = self.call(flatten, vec![v.clone()], vec![]).await?;
            let pair = self.iterate(&out)?;
            let [children, aux] = pair.as_slice() else { return Err(shape_error("flatten")) };
            let children = self.iterate_values(children).await?;
            // With keys registered too, the keys are the ones that function gives.
            let keys: Vec<KeyStep> = match flatten_with_keys {
                Some(with_keys) => {
                    let out = self.call(with_keys.clone(), vec![v.clone()], vec![]).await?;
                    let pair = self.iterate(&out)?;
                    let Some(pairs) = pair.first() else { return Err(shape_error("flatten_with_keys")) };
                    let mut keys = Vec::new();
                    for item in self.iterate(pairs)? {
                        keys.push(KeyStep::Given(self.iterate(&item)?.first().cloned().unwrap_or(Value::None)));
                    }
                    keys
                }
                None => (0..children.len()).map(KeyStep::Flattened).collect(),
            };
            Ok((aux.clone(), keys.into_iter().zip(children).collect()))
        })
    }

    /// A pytree's structure and leaves: lists, tuples, dicts (by sorted key) and namedtuples
    /// are nodes, None an empty node, registered classes nodes of their kind (running the
    /// script's flatten functions), anything else a leaf, and so is a node for which
    /// `is_leaf(node)` is true (JAX's `is_leaf=`).
    pub(super) fn tree_of<'a>(
        &'a mut self,
        v: &'a Value,
        is_leaf: Option<&'a Value>,
        leaves: &'a mut Vec<Value>,
    ) -> LocalFuture<'a, R<Tree>> {
        Box::pin(async move {
            let is_leaf = is_leaf.filter(|t| !matches!(t, Value::None));
            self.walk(v, is_leaf, leaves, &mut Vec::new(), &mut None, 0).await
        })
    }

    /// `tree_of` that also gives each leaf's key path.
    async fn tree_with_paths(
        &mut self,
        v: &Value,
        is_leaf: Option<&Value>,
        leaves: &mut Vec<Value>,
    ) -> R<(Tree, Vec<Vec<KeyStep>>)> {
        let mut paths = Some(Vec::new());
        let is_leaf = is_leaf.filter(|t| !matches!(t, Value::None));
        let tree = self.walk(v, is_leaf, leaves, &mut Vec::new(), &mut paths, 0).await?;
        Ok((tree, paths.unwrap_or_default()))
    }

    fn walk<'a>(
        &'a mut self,
        v: &'a Value,
        is_leaf: Option<&'a Value>,
        leaves: &'a mut Vec<Value>,
        here: &'a mut Vec<KeyStep>,
        paths: &'a mut Option<Vec<Vec<KeyStep>>>,
        depth: usize,
    ) -> LocalFuture<'a, R<Tree>> {
        Box::pin(async move {
            if depth > 32 {
                return super::exceptions::raise(Builtin::RecursionError, "pytree nested too deeply");
            }
            let leaf = |leaves: &mut Vec<Value>, here: &mut Vec<KeyStep>, paths: &mut Option<Vec<Vec<KeyStep>>>| {
                leaves.push(v.clone());
                if let Some(paths) = paths {
                    paths.push(here.clone());
                }
                Tree::Leaf
            };
            if let Some(test) = is_leaf {
                let verdict = self.call(test.clone(), vec![v.clone()], vec![]).await?;
                if self.truthy(&verdict)? {
                    return Ok(leaf(leaves, here, paths));
                }
            }
            // The children of a node, each with its key step.
            let children: Vec<(KeyStep, Value)> = match v {
                Value::None => return Ok(Tree::None),
                Value::List(_) | Value::Tuple(_) => {
                    self.iterate(v)?.into_iter().enumerate().map(|(i, c)| (KeyStep::Sequence(i), c)).collect()
                }
                Value::Dict(d) => {
                    let entries = sorted_entries(&d.borrow());
                    entries.into_iter().map(|(k, c)| (KeyStep::Dict(k), c)).collect()
                }
                Value::Instance(_) if namedtuple_items(v).is_some() => {
                    let (class, items) = namedtuple_items(v).expect("checked above");
                    namedtuple_steps(&class, items.len()).into_iter().zip(items.iter().cloned()).collect()
                }
                Value::Instance(i) if self.pytree_nodes.node_of(&i.class).is_some() => {
                    let node = self.pytree_nodes.node_of(&i.class).expect("checked above");
                    let (aux, children) = self.node_children(v, &node).await?;
                    let mut trees = Vec::with_capacity(children.len());
                    for (step, child) in children {
                        here.push(step);
                        let tree = self.walk(&child, is_leaf, leaves, here, paths, depth + 1).await;
                        here.pop();
                        trees.push(tree?);
                    }
                    return Ok(Tree::Custom(i.class.clone(), node, aux, trees));
                }
                _ => return Ok(leaf(leaves, here, paths)),
            };
            let mut trees = Vec::with_capacity(children.len());
            let mut keys = Vec::new();
            for (step, child) in children {
                if let KeyStep::Dict(k) = &step {
                    keys.push(k.clone());
                }
                here.push(step);
                let tree = self.walk(&child, is_leaf, leaves, here, paths, depth + 1).await;
                here.pop();
                trees.push(tree?);
            }
            Ok(match v {
                Value::List(_) => Tree::List(trees),
                Value::Tuple(_) => Tree::Tuple(trees),
                Value::Dict(_) => Tree::Dict(keys.into_iter().zip(trees).collect()),
                _ => {
                    let (class, _) = namedtuple_items(v).expect("only namedtuples are left");
                    Tree::Named(class, trees)
                }
            })
        })
    }

    /// Rebuilds `tree` with `leaves` in order, running the script's unflatten functions.
    pub(super) fn unflatten_tree<'a>(
        &'a mut self,
        tree: &'a Tree,
        leaves: &'a mut dyn Iterator<Item = Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            Ok(match tree {
                Tree::Leaf => leaves.next().unwrap_or(Value::None),
                Tree::None => Value::None,
                Tree::List(items) => Value::list(self.unflatten_all(items, leaves).await?),
                Tree::Tuple(items) => Value::tuple(self.unflatten_all(items, leaves).await?),
                Tree::Named(class, items) => {
                    let fields = Value::tuple(self.unflatten_all(items, leaves).await?);
                    Value::Instance(Rc::new(Instance::new(class.clone(), fields)))
                }
                Tree::Dict(items) => {
                    let mut d = super::value::Dict::default();
                    for (k, t) in items {
                        let v = self.unflatten_tree(t, leaves).await?;
                        d.entries.push((k.clone(), v));
                    }
                    Value::Dict(Rc::new(std::cell::RefCell::new(d)))
                }
                Tree::Custom(class, node, aux, items) => {
                    let children = self.unflatten_all(items, leaves).await?;
                    match &**node {
                        Node::Functions { unflatten, .. } => {
                            self.call(unflatten.clone(), vec![aux.clone(), Value::tuple(children)], vec![]).await?
                        }
                        Node::Fields { data, meta } => {
                            let metas = match aux {
                                Value::Tuple(values) => values.to_vec(),
                                _ => Vec::new(),
                            };
                            with_fields(
                                class,
                                data.iter().cloned().zip(children).chain(meta.iter().cloned().zip(metas)),
                            )
                        }
                        Node::Static => aux.clone(),
                    }
                }
            })
        })
    }

    async fn unflatten_all(&mut self, items: &[Tree], leaves: &mut dyn Iterator<Item = Value>) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for t in items {
            out.push(self.unflatten_tree(t, leaves).await?);
        }
        Ok(out)
    }

    /// `unflatten_tree` with tensors as the leaves.
    pub(super) async fn unflatten_tensors(
        &mut self,
        tree: &Tree,
        leaves: impl IntoIterator<Item = Tensor>,
    ) -> R<Value> {
        self.unflatten_tree(tree, &mut leaves.into_iter().map(Value::of_tensor)).await
    }

    /// The subtrees of `v` at `tree`'s leaves, in order: `v` must have `tree`'s structure
    /// down to them, as JAX's `flatten_up_to` requires (so `tree_map` takes trees that extend
    /// the first one). `path` names where `v` is, for the error.
    pub(super) fn flatten_up_to<'a>(
        &'a mut self,
        tree: &'a Tree,
        v: &'a Value,
        path: String,
        out: &'a mut Vec<Value>,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let kind = match tree {
                Tree::Leaf => "leaf".to_string(),
                Tree::None => "NoneType".into(),
                Tree::List(_) => "list".into(),
                Tree::Tuple(_) => "tuple".into(),
                Tree::Named(..) => "namedtuple".into(),
                Tree::Dict(_) => "dict".into(),
                Tree::Custom(class, ..) => class.name.clone(),
            };
            let different_types = || {
                err(format!(
                    "pytree structure error: different types at key path {path}: {kind} in the first tree, {} in this one",
                    v.type_name()
                ))
            };
            let (items, values, what): (&[Tree], Vec<Value>, &str) = match (tree, v) {
                (Tree::Leaf, _) => {
                    out.push(v.clone());
                    return Ok(());
                }
                (Tree::None, Value::None) => return Ok(()),
                (Tree::List(items), Value::List(l)) => (items, l.borrow().clone(), "list"),
                (Tree::Tuple(items), Value::Tuple(t)) => (items, t.to_vec(), "tuple"),
                (Tree::Named(class, items), _) if namedtuple_items(v).is_some_and(|(c, _)| Rc::ptr_eq(&c, class)) => {
                    (items, namedtuple_items(v).expect("checked above").1.to_vec(), "namedtuple")
                }
                (Tree::Custom(class, node, _, items), Value::Instance(i)) if Rc::ptr_eq(&i.class, class) => {
                    let (_, children) = self.node_children(v, node).await?;
                    (items, children.into_iter().map(|(_, c)| c).collect(), "custom node children")
                }
                (Tree::Dict(items), Value::Dict(d)) => {
                    let entries = sorted_entries(&d.borrow());
                    let keys = |keys: Vec<&Value>| keys.into_iter().map(repr).collect::<Vec<_>>().join(", ");
                    let (ours, theirs) =
                        (keys(items.iter().map(|(k, _)| k).collect()), keys(entries.iter().map(|(k, _)| k).collect()));
                    if ours != theirs {
                        return err(format!(
                            "pytree structure error: different dict keys at key path {path}: ({ours}) in the first tree, ({theirs}) in this one"
                        ));
                    }
                    for ((k, t), (_, v)) in items.iter().zip(&entries) {
                        self.flatten_up_to(t, v, format!("{path}[{}]", repr(k)), out).await?;
                    }
                    return Ok(());
                }
                _ => return different_types(),
            };
            if items.len() != values.len() {
                return err(format!(
                    "pytree structure error: different lengths of {what} at key path {path}: {} in the first tree, {} in this one",
                    items.len(),
                    values.len()
                ));
            }
            for (i, (t, v)) in items.iter().zip(&values).enumerate() {
                self.flatten_up_to(t, v, format!("{path}[{i}]"), out).await?;
            }
            Ok(())
        })
    }

    /// `_playground.tree_paths(tree, is_leaf, *rest)`: `([(path, leaf, *rest_leaves)], treedef)`
    /// where a path is a tuple of `(kind, value)` steps (see `jax._tree`).
    pub(super) async fn tree_paths(&mut self, args: Vec<Value>) -> R<Value> {
        let mut args = args.into_iter();
        let tree_value = args.next().unwrap_or(Value::None);
        let is_leaf = args.next();
        let rest: Vec<Value> = args.collect();
        let mut leaves = Vec::new();
        let (tree, paths) = self.tree_with_paths(&tree_value, is_leaf.as_ref(), &mut leaves).await?;
        let mut columns = Vec::new();
        for (i, other) in rest.iter().enumerate() {
            let mut column = Vec::new();
            self.flatten_up_to(&tree, other, format!("tree_map_with_path rest[{i}]"), &mut column).await?;
            columns.push(column);
        }
        let entries = paths
            .iter()
            .zip(leaves)
            .enumerate()
            .map(|(i, (path, leaf))| {
                let mut entry = vec![Value::tuple(path.iter().map(KeyStep::to_value).collect()), leaf];
                entry.extend(columns.iter().map(|c| c[i].clone()));
                Value::tuple(entry)
            })
            .collect();
        Ok(Value::tuple(vec![Value::list(entries), Value::native(super::value::Native::TreeDef(tree))]))
    }
}

/// The key steps of a namedtuple's `n` fields: each its name (`.x`), as JAX's `GetAttrKey`.
pub(super) fn namedtuple_steps(class: &Rc<Class>, n: usize) -> Vec<KeyStep> {
    let fields = match class.lookup("_fields") {
        Some(Value::Tuple(f)) => f.to_vec(),
        Some(Value::List(f)) => f.borrow().clone(),
        _ => Vec::new(),
    };
    (0..n)
        .map(|i| {
            KeyStep::Attr(match fields.get(i) {
                Some(Value::Str(s)) => s.to_string(),
                _ => i.to_string(),
            })
        })
        .collect()
}

impl Interp<'_, '_> {
    /// Each leaf of `v` with its key path as `jax.tree_util.keystr` writes it (`['b']`,
    /// `[0].w`).
    pub(super) async fn leaf_paths(&mut self, v: &Value) -> R<Vec<String>> {
        let mut leaves = Vec::new();
        let (_, paths) = self.tree_with_paths(v, None, &mut leaves).await?;
        Ok(paths.iter().map(|path| path.iter().map(KeyStep::keystr).collect()).collect())
    }
}
