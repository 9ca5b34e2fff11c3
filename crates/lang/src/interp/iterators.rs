//! Iterators and generators: Python's iteration protocol (`iter`, `next`, `for`), the lazy
//! built-ins (`zip`, `map`, `filter`, `enumerate`), and generator functions.
//!
//! A generator is a function body that can stop at a `yield` and carry on from there later.
//! The interpreter walks the syntax tree with Rust's own call stack, which cannot be put
//! aside, so a generator keeps its place as a cursor instead: one `Frame` per statement it is
//! inside (the index in each block, a `for` loop's iterator, which branch of an `if`, which
//! part of a `try`). Resuming walks back down the cursor to the `yield` it stopped at. Only
//! the statements that contain a `yield` run this way; every other statement of the body
//! runs through the ordinary executor. The parser takes `yield` as a statement or as the
//! value of an assignment, which are the places this walk can resume.

use super::exceptions::{type_err, value_err, RtError};
use super::objects::Builtin;
use super::value::{Function, Value};
use super::{Env, Flow, Interp, R};
use crate::ast::{ExceptHandler, Expr, ExprKind, Stmt, StmtKind};
use jaxlite::{LocalFuture, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// A built-in iterator's state.
pub enum Iter {
    /// A list or tuple read one item at a time (a list's later appends are seen, as in Python).
    Seq {
        items: Value,
        index: usize,
    },
    /// Items taken when the iterator was made (a string's characters, a dict's keys, an
    /// array's rows).
    Items {
        items: std::vec::IntoIter<Value>,
        kind: &'static str,
    },
    Range {
        next: i64,
        stop: i64,
        step: i64,
    },
    Generator(Rc<Generator>),
    Zip(Vec<Value>),
    Map {
        func: Value,
        iters: Vec<Value>,
    },
    Filter {
        func: Value,
        iter: Value,
    },
    Enumerate {
        iter: Value,
        count: i64,
    },
    /// An object with `__getitem__` and no `__iter__`, read at 0, 1, ... until `IndexError`.
    Indexed {
        object: Value,
        index: i64,
    },
    /// `iter(callable, sentinel)`.
    Callable {
        func: Value,
        sentinel: Value,
    },
}

impl Iter {
    pub fn type_name(&self) -> &'static str {
        match self {
            Iter::Seq { items: Value::Tuple(_), .. } => "tuple_iterator",
            Iter::Seq { .. } => "list_iterator",
            Iter::Items { kind, .. } => kind,
            Iter::Range { .. } => "range_iterator",
            Iter::Generator(_) => "generator",
            Iter::Zip(_) => "zip",
            Iter::Map { .. } => "map",
            Iter::Filter { .. } => "filter",
            Iter::Enumerate { .. } => "enumerate",
            Iter::Indexed { .. } => "iterator",
            Iter::Callable { .. } => "callable_iterator",
        }
    }

    pub fn repr(&self) -> String {
        match self {
            Iter::Generator(g) => {
                format!("<generator object {} at {:#x}>", g.func.name.borrow(), Rc::as_ptr(g) as usize)
            }
            other => format!("<{} object>", other.type_name()),
        }
    }
}

/// A generator function's body, stopped at a `yield` (or not started, or finished).
pub struct Generator {
    pub func: Rc<Function>,
    pub scope: Env,
    pub state: RefCell<GenState>,
}

pub enum GenState {
    NotStarted,
    /// Stopped at a `yield`: where, as a cursor.
    Suspended(Vec<Frame>),
    Running,
    Done,
}

/// One level of a suspended generator's cursor.
pub enum Frame {
    /// The index of the statement running in a block.
    Block(usize),
    /// The statement stopped at its `yield`; resuming hands it the value sent in.
    Yielded,
    /// `yield from`, with the iterator it is passing on.
    YieldFrom {
        iter: Value,
    },
    If(bool),
    /// Which case of a `match` runs (none matched: `None`).
    Case(Option<usize>),
    While {
        in_else: bool,
    },
    For {
        iter: Value,
        in_else: bool,
    },
    Try(TryStage),
    With {
        exit: ContextExit,
    },
}

/// Where a `try` statement is.
pub enum TryStage {
    Body,
    Handler { index: usize, error: RtError },
    Else,
    Finally(Exit),
}

/// How a block was left, on its way through a `finally`.
pub enum Exit {
    Flow(Flow),
    Error(RtError),
}

/// How to leave a `with` block: restore the matmul precision, or call the manager's
/// `__exit__`.
pub enum ContextExit {
    Precision(jaxlite::Precision),
    Object(Value),
}

/// What running a generator's statements came to.
enum Step {
    Flow(Flow),
    Yield(Value),
}

/// How one pass of a loop's body in a generator ended.
enum LoopPass {
    /// On to the next iteration.
    Next,
    Break,
    /// Out of the loop and the statement: a `yield` or a `return`.
    Leave(Step),
}

/// What a generator is resumed with: the value its `yield` gives (`next`, `send`), or an
/// exception raised where it stopped (`throw`, `close`).
pub enum Sent {
    Value(Value),
    Error(RtError),
}

/// What resuming a generator gave.
pub enum Resumed {
    Yielded(Value),
    Returned(Value),
}

impl Interp<'_, '_> {
    /// `iter(v)`: the iterator over `v`.
    pub(super) fn iter_of<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let iter = |it: Iter| Value::Iterator(Rc::new(RefCell::new(it)));
            Ok(match v {
                Value::Iterator(_) => v.clone(),
                Value::List(_) | Value::Tuple(_) => iter(Iter::Seq { items: v.clone(), index: 0 }),
                Value::Range { start, stop, step } => iter(Iter::Range { next: *start, stop: *stop, step: *step }),
                Value::Str(s) => {
                    let chars: Vec<Value> = s.chars().map(|c| Value::str(&c.to_string())).collect();
                    iter(Iter::Items { items: chars.into_iter(), kind: "str_ascii_iterator" })
                }
                Value::Dict(d) => {
                    let keys: Vec<Value> = d.borrow().entries.iter().map(|(k, _)| k.clone()).collect();
                    iter(Iter::Items { items: keys.into_iter(), kind: "dict_keyiterator" })
                }
                Value::Set(s) => {
                    let items = s.iteration_order();
                    iter(Iter::Items { items: items.into_iter(), kind: "set_iterator" })
                }
                Value::Class(_) => match self.call_special(v, "__iter__", vec![]).await? {
                    // A metaclass's `__iter__` (iterating over an Enum's members).
                    Some(it) => it,
                    None => return type_err(format!("'{}' object is not iterable", v.type_name())),
                },
                Value::Instance(i) => {
                    if self.class_has(&i.class, "__iter__") {
                        let it = self.call_method_of(v, "__iter__", vec![]).await?;
                        if !self.is_iterator(&it) {
                            return type_err(format!("iter() returned non-iterator of type '{}'", it.type_name()));
                        }
                        it
                    } else if self.class_has(&i.class, "__getitem__") {
                        iter(Iter::Indexed { object: v.clone(), index: 0 })
                    } else {
                        let base = i.base.borrow().clone();
                        match base {
                            Value::None => return type_err(format!("'{}' object is not iterable", v.type_name())),
                            base => self.iter_of(&base).await?,
                        }
                    }
                }
                Value::Array(Tensor::Traced(_)) | Value::Array(_) | Value::Key(_) => {
                    let rows = self.iterate_values(v).await?;
                    iter(Iter::Items { items: rows.into_iter(), kind: "iterator" })
                }
                // A NumPy array's rows are views of it, as `a[i]` is.
                Value::Host(h) => {
                    let Some(n) = h.get().shape().first().copied() else {
                        return type_err("iteration over a 0-d array");
                    };
                    let mut rows = Vec::with_capacity(n);
                    for i in 0..n {
                        rows.push(self.get_item(v, &Value::Int(i as i64)).await?);
                    }
                    iter(Iter::Items { items: rows.into_iter(), kind: "iterator" })
                }
                other => return type_err(format!("'{}' object is not iterable", other.type_name())),
            })
        })
    }

    /// Whether `v` is an iterator: a built-in one, or an object with `__next__`.
    fn is_iterator(&self, v: &Value) -> bool {
        match v {
            Value::Iterator(_) => true,
            Value::Instance(i) => self.class_has(&i.class, "__next__"),
            _ => false,
        }
    }

    /// `next(it)`: the next item, or `None` when the iterator is exhausted.
    pub(super) fn next_of<'a>(&'a mut self, it: &'a Value) -> LocalFuture<'a, R<Option<Value>>> {
        Box::pin(async move {
            self.step()?;
            let state = match it {
                Value::Iterator(state) => state.clone(),
                Value::Instance(_) => {
                    return match self.call_method_of(it, "__next__", vec![]).await {
                        Ok(v) => Ok(Some(v)),
                        Err(e) if self.is_stop_iteration(&e) => Ok(None),
                        Err(e) => Err(e),
                    };
                }
                other => return type_err(format!("'{}' object is not an iterator", other.type_name())),
            };
            // Each arm takes what it needs out of the state before calling back into scripts,
            // which may use the same iterator.
            enum Pull {
                Done(Option<Value>),
                Gen(Rc<Generator>),
                Zip(Vec<Value>),
                Map(Value, Vec<Value>),
                Filter(Value, Value),
                Enumerate(Value, i64),
                Indexed(Value, i64),
                Callable(Value, Value),
            }
            let pull = match &mut *state.borrow_mut() {
                Iter::Seq { items, index } => {
                    let item = match items {
                        Value::List(l) => l.borrow().get(*index).cloned(),
                        Value::Tuple(t) => t.get(*index).cloned(),
                        _ => None,
                    };
                    *index += item.is_some() as usize;
                    Pull::Done(item)
                }
                Iter::Items { items, .. } => Pull::Done(items.next()),
                Iter::Range { next, stop, step } => {
                    let more = if *step > 0 { *next < *stop } else { *next > *stop };
                    if more {
                        let v = *next;
                        *next = next.saturating_add(*step);
                        if (*step > 0 && *next < v) || (*step < 0 && *next > v) {
                            *next = *stop;
                        }
                        Pull::Done(Some(Value::Int(v)))
                    } else {
                        Pull::Done(None)
                    }
                }
                Iter::Generator(g) => Pull::Gen(g.clone()),
                Iter::Zip(iters) => Pull::Zip(iters.clone()),
                Iter::Map { func, iters } => Pull::Map(func.clone(), iters.clone()),
                Iter::Filter { func, iter } => Pull::Filter(func.clone(), iter.clone()),
                Iter::Enumerate { iter, count } => {
                    let c = *count;
                    *count = count.wrapping_add(1);
                    Pull::Enumerate(iter.clone(), c)
                }
                Iter::Indexed { object, index } => {
                    let i = *index;
                    *index += 1;
                    Pull::Indexed(object.clone(), i)
                }
                Iter::Callable { func, sentinel } => Pull::Callable(func.clone(), sentinel.clone()),
            };
            Ok(match pull {
                Pull::Done(item) => item,
                Pull::Gen(g) => match self.resume(&g, Value::None).await? {
                    Resumed::Yielded(v) => Some(v),
                    Resumed::Returned(_) => None,
                },
                Pull::Zip(iters) => {
                    let mut items = Vec::with_capacity(iters.len());
                    for i in &iters {
                        match self.next_of(i).await? {
                            Some(v) => items.push(v),
                            None => return Ok(None),
                        }
                    }
                    (!iters.is_empty()).then(|| Value::tuple(items))
                }
                Pull::Map(func, iters) => {
                    let mut args = Vec::with_capacity(iters.len());
                    for i in &iters {
                        match self.next_of(i).await? {
                            Some(v) => args.push(v),
                            None => return Ok(None),
                        }
                    }
                    Some(self.call(func, args, vec![]).await?)
                }
                Pull::Filter(func, iter) => loop {
                    let Some(item) = self.next_of(&iter).await? else { break None };
                    let keep = match &func {
                        Value::None => item.clone(),
                        f => self.call(f.clone(), vec![item.clone()], vec![]).await?,
                    };
                    if self.truth(&keep).await? {
                        break Some(item);
                    }
                },
                Pull::Enumerate(iter, count) => {
                    self.next_of(&iter).await?.map(|v| Value::tuple(vec![Value::Int(count), v]))
                }
                Pull::Indexed(object, i) => match self.get_item(&object, &Value::Int(i)).await {
                    Ok(v) => Some(v),
                    Err(e) if !e.fatal && matches!(e.kind, Builtin::IndexError | Builtin::StopIteration) => None,
                    Err(e) => return Err(e),
                },
                Pull::Callable(func, sentinel) => {
                    let v = self.call(func, vec![], vec![]).await?;
                    let c = self.compare(crate::ast::CmpOp::Eq, &v, &sentinel).await?;
                    if self.truth(&c).await? {
                        None
                    } else {
                        Some(v)
                    }
                }
            })
        })
    }

    /// Whether `e` is a `StopIteration` (or a subclass), which ends an iteration.
    pub(super) fn is_stop_iteration(&self, e: &RtError) -> bool {
        if e.fatal {
            return false;
        }
        match &e.exception {
            Some(Value::Instance(i)) => i.class.derives(Builtin::StopIteration),
            _ => e.kind == Builtin::StopIteration,
        }
    }

    /// Every item of an iterable, in order: for the built-ins that consume one (`list`,
    /// `sum`, `sorted`, unpacking, `*args`).
    pub(super) fn collect<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<Vec<Value>>> {
        Box::pin(async move {
            match v {
                Value::Iterator(_) | Value::Instance(_) | Value::Class(_) => {
                    let it = self.iter_of(v).await?;
                    let mut out = Vec::new();
                    while let Some(item) = self.next_of(&it).await? {
                        out.push(item);
                        super::ops::check_len(out.len())?;
                    }
                    Ok(out)
                }
                Value::Set(s) => Ok(s.iteration_order()),
                _ => self.iterate_values(v).await,
            }
        })
    }

    /// `next(it)` without a default: the next item, or the `StopIteration` that ends it,
    /// carrying a generator's return value.
    pub(super) fn next_or_stop<'a>(&'a mut self, it: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let generator = match it {
                Value::Iterator(state) => match &*state.borrow() {
                    Iter::Generator(g) => Some(g.clone()),
                    _ => None,
                },
                _ => None,
            };
            let Some(g) = generator else {
                return self.next_of(it).await?.ok_or_else(|| RtError::of(Builtin::StopIteration, ""));
            };
            match self.resume(&g, Value::None).await? {
                Resumed::Yielded(v) => Ok(v),
                Resumed::Returned(v) => {
                    let mut e = RtError::of(Builtin::StopIteration, "");
                    if !matches!(v, Value::None) {
                        e.message = super::value::to_str(&v);
                        e.args = Some(vec![v]);
                    }
                    Err(e)
                }
            }
        })
    }

    /// `generator.close()`: `GeneratorExit` raised at its `yield`, which runs its `finally`
    /// blocks.
    pub(super) async fn close_generator(&mut self, g: &Rc<Generator>) -> R<()> {
        if !matches!(&*g.state.borrow(), GenState::Suspended(_)) {
            *g.state.borrow_mut() = GenState::Done;
            return Ok(());
        }
        let exit = RtError::of(Builtin::GeneratorExit, "");
        match self.resume_with(g, Sent::Error(exit)).await {
            Ok(Resumed::Yielded(_)) => Err(RtError::of(Builtin::RuntimeError, "generator ignored GeneratorExit")),
            Ok(Resumed::Returned(_)) => Ok(()),
            Err(e)
                if !e.fatal
                    && matches!(e.kind, Builtin::GeneratorExit | Builtin::StopIteration)
                    && e.exception.is_none() =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// A `for` loop left a generator no one else holds: CPython's reference counting closes
    /// it there (running its `finally`), and `Rc` counts references the same way. An error
    /// in that `finally` is, as in CPython, reported and ignored.
    pub(super) async fn close_if_dropped(&mut self, it: Value) -> R<()> {
        let Value::Iterator(state) = it else { return Ok(()) };
        if Rc::strong_count(&state) != 1 {
            return Ok(());
        }
        let g = match &*state.borrow() {
            Iter::Generator(g) => g.clone(),
            _ => return Ok(()),
        };
        match self.close_generator(&g).await {
            Err(e) if e.fatal => Err(e),
            _ => Ok(()),
        }
    }

    /// Calls a generator function: the generator, not yet started.
    pub(super) fn make_generator(&mut self, func: &Rc<Function>, scope: Env) -> Value {
        let g = Generator { func: func.clone(), scope, state: RefCell::new(GenState::NotStarted) };
        Value::Iterator(Rc::new(RefCell::new(Iter::Generator(Rc::new(g)))))
    }

    /// Runs a generator until its next `yield` (handing `sent` to the one it stopped at) or
    /// its end.
    pub(super) fn resume<'a>(&'a mut self, g: &'a Rc<Generator>, sent: Value) -> LocalFuture<'a, R<Resumed>> {
        self.resume_with(g, Sent::Value(sent))
    }

    /// `resume`, handing the generator a value or an exception.
    pub(super) fn resume_with<'a>(&'a mut self, g: &'a Rc<Generator>, sent: Sent) -> LocalFuture<'a, R<Resumed>> {
        Box::pin(async move {
            // Taken out first: a `RefMut` in the match's scrutinee would live through its arms.
            let state = std::mem::replace(&mut *g.state.borrow_mut(), GenState::Running);
            let mut cursor = match state {
                GenState::NotStarted => match sent {
                    Sent::Value(Value::None) => Vec::new(),
                    Sent::Value(_) => {
                        *g.state.borrow_mut() = GenState::NotStarted;
                        return type_err("can't send non-None value to a just-started generator");
                    }
                    // An exception thrown into a generator that never started ends it there.
                    Sent::Error(e) => {
                        *g.state.borrow_mut() = GenState::Done;
                        return Err(e);
                    }
                },
                GenState::Suspended(cursor) => cursor,
                GenState::Running => {
                    *g.state.borrow_mut() = GenState::Running;
                    return value_err("generator already executing");
                }
                GenState::Done => {
                    *g.state.borrow_mut() = GenState::Done;
                    return match sent {
                        Sent::Error(e) => Err(e),
                        Sent::Value(_) => Ok(Resumed::Returned(Value::None)),
                    };
                }
            };
            self.enter_call()?;
            let mut sent = Some(sent);
            let body = &g.func.def.body;
            let step = self.gen_block(body, &g.scope, &mut cursor, 0, &mut sent).await;
            self.depth -= 1;
            match step {
                Ok(Step::Yield(v)) => {
                    *g.state.borrow_mut() = GenState::Suspended(cursor);
                    Ok(Resumed::Yielded(v))
                }
                Ok(Step::Flow(Flow::Return(v))) => {
                    *g.state.borrow_mut() = GenState::Done;
                    Ok(Resumed::Returned(v))
                }
                Ok(Step::Flow(_)) => {
                    *g.state.borrow_mut() = GenState::Done;
                    Ok(Resumed::Returned(Value::None))
                }
                Err(e) => {
                    *g.state.borrow_mut() = GenState::Done;
                    // PEP 479: a StopIteration escaping a generator would silently end the
                    // loop reading it; it is a RuntimeError instead.
                    if self.is_stop_iteration(&e) {
                        return Err(RtError::of(Builtin::RuntimeError, "generator raised StopIteration"));
                    }
                    Err(e)
                }
            }
        })
    }

    /// Runs `body` from the cursor's position at `depth` (from its start when the cursor
    /// has no frame there).
    /// A loop's `else` block, from the cursor; the loop's frame is dropped unless it yielded.
    async fn gen_loop_else(
        &mut self,
        orelse: &[Stmt],
        env: &Env,
        cur: &mut Vec<Frame>,
        depth: usize,
        sent: &mut Option<Sent>,
    ) -> R<Step> {
        let step = self.gen_block(orelse, env, cur, depth + 1, sent).await?;
        if !matches!(step, Step::Yield(_)) {
            cur.truncate(depth);
        }
        Ok(step)
    }

    /// One pass of a loop's body, from the cursor.
    async fn gen_loop_body(
        &mut self,
        body: &[Stmt],
        env: &Env,
        cur: &mut Vec<Frame>,
        depth: usize,
        sent: &mut Option<Sent>,
    ) -> R<LoopPass> {
        Ok(match self.gen_block(body, env, cur, depth + 1, sent).await? {
            Step::Yield(v) => LoopPass::Leave(Step::Yield(v)),
            Step::Flow(Flow::Break) => LoopPass::Break,
            Step::Flow(Flow::Return(v)) => {
                cur.truncate(depth);
                LoopPass::Leave(Step::Flow(Flow::Return(v)))
            }
            Step::Flow(_) => {
                cur.truncate(depth + 1);
                LoopPass::Next
            }
        })
    }

    fn gen_block<'a>(
        &'a mut self,
        body: &'a [Stmt],
        env: &'a Env,
        cur: &'a mut Vec<Frame>,
        depth: usize,
        sent: &'a mut Option<Sent>,
    ) -> LocalFuture<'a, R<Step>> {
        Box::pin(async move {
            let start = match cur.get(depth) {
                Some(Frame::Block(i)) => *i,
                _ => {
                    cur.truncate(depth);
                    cur.push(Frame::Block(0));
                    0
                }
            };
            for (i, stmt) in body.iter().enumerate().skip(start) {
                cur[depth] = Frame::Block(i);
                let step = if crate::ast::stmt_yields(stmt) {
                    self.step().map_err(|e| e.at(stmt.span))?;
                    self.gen_stmt(stmt, env, cur, depth + 1, sent).await.map_err(|e| e.at(stmt.span))?
                } else {
                    Step::Flow(self.exec(stmt, env).await.map_err(|e| e.at(stmt.span))?)
                };
                match step {
                    Step::Yield(v) => return Ok(Step::Yield(v)),
                    Step::Flow(Flow::Normal) => cur.truncate(depth + 1),
                    Step::Flow(flow) => {
                        cur.truncate(depth);
                        return Ok(Step::Flow(flow));
                    }
                }
            }
            cur.truncate(depth);
            Ok(Step::Flow(Flow::Normal))
        })
    }

    /// One statement that contains a `yield`, resumed where the cursor says when it has a
    /// frame at `depth`.
    fn gen_stmt<'a>(
        &'a mut self,
        stmt: &'a Stmt,
        env: &'a Env,
        cur: &'a mut Vec<Frame>,
        depth: usize,
        sent: &'a mut Option<Sent>,
    ) -> LocalFuture<'a, R<Step>> {
        Box::pin(async move {
            let resuming = cur.len() > depth;
            match &stmt.kind {
                StmtKind::Expr(e) => self.gen_yield(e, &[], env, cur, depth, sent).await,
                StmtKind::Assign { targets, value } => self.gen_yield(value, targets, env, cur, depth, sent).await,
                StmtKind::AnnAssign { target, value: Some(value), .. } => {
                    self.gen_yield(value, std::slice::from_ref(target), env, cur, depth, sent).await
                }
                StmtKind::If { cond, body, orelse } => {
                    let branch = match cur.get(depth) {
                        Some(Frame::If(b)) if resuming => *b,
                        _ => {
                            let c = self.eval(cond, env).await?;
                            let b = self.truth(&c).await.map_err(|e| e.at(cond.span))?;
                            cur.push(Frame::If(b));
                            b
                        }
                    };
                    let step = self.gen_block(if branch { body } else { orelse }, env, cur, depth + 1, sent).await?;
                    if !matches!(step, Step::Yield(_)) {
                        cur.truncate(depth);
                    }
                    Ok(step)
                }
                StmtKind::While { cond, body, orelse } => {
                    let mut resume_body = resuming;
                    if !resuming {
                        cur.push(Frame::While { in_else: false });
                    }
                    loop {
                        if matches!(cur.get(depth), Some(Frame::While { in_else: true })) {
                            return self.gen_loop_else(orelse, env, cur, depth, sent).await;
                        }
                        if !resume_body {
                            let c = self.eval(cond, env).await?;
                            if !self.truth(&c).await.map_err(|e| e.at(cond.span))? {
                                cur[depth] = Frame::While { in_else: true };
                                cur.truncate(depth + 1);
                                continue;
                            }
                        }
                        resume_body = false;
                        match self.gen_loop_body(body, env, cur, depth, sent).await? {
                            LoopPass::Next => {}
                            LoopPass::Break => break,
                            LoopPass::Leave(step) => return Ok(step),
                        }
                    }
                    cur.truncate(depth);
                    Ok(Step::Flow(Flow::Normal))
                }
                StmtKind::For { target, iter, body, orelse } => {
                    let mut resume_body = resuming;
                    if !resuming {
                        let iterable = self.eval(iter, env).await?;
                        let it = self.iter_of(&iterable).await.map_err(|e| e.at(iter.span))?;
                        cur.push(Frame::For { iter: it, in_else: false });
                    }
                    loop {
                        let (it, in_else) = match cur.get(depth) {
                            Some(Frame::For { iter, in_else }) => (iter.clone(), *in_else),
                            _ => unreachable!("a `for` statement's frame"),
                        };
                        if in_else {
                            return self.gen_loop_else(orelse, env, cur, depth, sent).await;
                        }
                        if !resume_body {
                            match self.next_of(&it).await.map_err(|e| e.at(iter.span))? {
                                Some(item) => self.assign(target, item, env).await?,
                                None => {
                                    cur[depth] = Frame::For { iter: it, in_else: true };
                                    cur.truncate(depth + 1);
                                    continue;
                                }
                            }
                        }
                        resume_body = false;
                        match self.gen_loop_body(body, env, cur, depth, sent).await? {
                            LoopPass::Next => {}
                            LoopPass::Break => break,
                            LoopPass::Leave(step) => return Ok(step),
                        }
                    }
                    cur.truncate(depth);
                    Ok(Step::Flow(Flow::Normal))
                }
                StmtKind::Try { body, handlers, orelse, finalbody } => {
                    self.gen_try(body, handlers, orelse, finalbody, env, cur, depth, sent).await
                }
                StmtKind::Match { subject, cases } => {
                    let chosen = match cur.get(depth) {
                        Some(Frame::Case(c)) if resuming => *c,
                        _ => {
                            let c = self.choose_case(subject, cases, env).await?;
                            cur.push(Frame::Case(c));
                            c
                        }
                    };
                    let step = match chosen {
                        Some(i) => self.gen_block(&cases[i].body, env, cur, depth + 1, sent).await?,
                        None => Step::Flow(Flow::Normal),
                    };
                    if !matches!(step, Step::Yield(_)) {
                        cur.truncate(depth);
                    }
                    Ok(step)
                }
                StmtKind::With { context, target, body } => {
                    if !resuming {
                        let manager = self.eval(context, env).await?;
                        let (entered, exit) = self.enter_context(&manager).await.map_err(|e| e.at(context.span))?;
                        if let Some(t) = target {
                            self.assign(t, entered, env).await?;
                        }
                        cur.push(Frame::With { exit });
                    }
                    let result = self.gen_block(body, env, cur, depth + 1, sent).await;
                    if let Ok(Step::Yield(v)) = result {
                        return Ok(Step::Yield(v));
                    }
                    let Frame::With { exit } = cur.remove(depth) else { unreachable!("a `with` statement's frame") };
                    cur.truncate(depth);
                    match result {
                        Ok(step) => {
                            self.exit_context(exit, None).await?;
                            Ok(step)
                        }
                        Err(mut e) => {
                            if self.exit_context(exit, Some(&mut e)).await? {
                                Ok(Step::Flow(Flow::Normal))
                            } else {
                                Err(e)
                            }
                        }
                    }
                }
                _ => Ok(Step::Flow(self.exec(stmt, env).await?)),
            }
        })
    }

    /// A `yield` or `yield from` statement, or an assignment of one's value to `targets`.
    fn gen_yield<'a>(
        &'a mut self,
        value: &'a Expr,
        targets: &'a [Expr],
        env: &'a Env,
        cur: &'a mut Vec<Frame>,
        depth: usize,
        sent: &'a mut Option<Sent>,
    ) -> LocalFuture<'a, R<Step>> {
        Box::pin(async move {
            let resuming = cur.len() > depth;
            let received = match &value.kind {
                ExprKind::Yield(e) => {
                    if !resuming {
                        let v = match e {
                            Some(e) => self.eval(e, env).await?,
                            None => Value::None,
                        };
                        cur.push(Frame::Yielded);
                        return Ok(Step::Yield(v));
                    }
                    cur.truncate(depth);
                    match sent.take() {
                        Some(Sent::Error(e)) => return Err(e),
                        Some(Sent::Value(v)) => v,
                        None => Value::None,
                    }
                }
                ExprKind::YieldFrom(e) => {
                    if !resuming {
                        let iterable = self.eval(e, env).await?;
                        let it = self.iter_of(&iterable).await.map_err(|err| err.at(e.span))?;
                        cur.push(Frame::YieldFrom { iter: it });
                    }
                    let Some(Frame::YieldFrom { iter }) = cur.get(depth) else { unreachable!("a `yield from` frame") };
                    let iter = iter.clone();
                    let value = sent.take().unwrap_or(Sent::Value(Value::None));
                    let generator = match &iter {
                        Value::Iterator(state) => match &*state.borrow() {
                            Iter::Generator(g) => Some(g.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    let next = match (generator, value) {
                        (Some(g), value) => self.resume_with(&g, value).await?,
                        (None, Sent::Error(e)) => return Err(e),
                        (None, Sent::Value(_)) => match self.next_of(&iter).await? {
                            Some(v) => Resumed::Yielded(v),
                            None => Resumed::Returned(Value::None),
                        },
                    };
                    match next {
                        Resumed::Yielded(v) => return Ok(Step::Yield(v)),
                        Resumed::Returned(v) => {
                            cur.truncate(depth);
                            v
                        }
                    }
                }
                _ => unreachable!("gen_yield runs yield statements"),
            };
            for t in targets {
                self.assign(t, received.clone(), env).await?;
            }
            Ok(Step::Flow(Flow::Normal))
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn gen_try<'a>(
        &'a mut self,
        body: &'a [Stmt],
        handlers: &'a [ExceptHandler],
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
        env: &'a Env,
        cur: &'a mut Vec<Frame>,
        depth: usize,
        sent: &'a mut Option<Sent>,
    ) -> LocalFuture<'a, R<Step>> {
        Box::pin(async move {
            if cur.len() <= depth {
                cur.push(Frame::Try(TryStage::Body));
            }
            loop {
                let Some(Frame::Try(stage)) = cur.get_mut(depth) else { unreachable!("a `try` statement's frame") };
                let next = match stage {
                    TryStage::Body => match self.gen_block(body, env, cur, depth + 1, sent).await {
                        Ok(Step::Yield(v)) => return Ok(Step::Yield(v)),
                        Ok(Step::Flow(Flow::Normal)) => TryStage::Else,
                        Ok(Step::Flow(flow)) => TryStage::Finally(Exit::Flow(flow)),
                        Err(e) => match self.find_handler(e, handlers, env).await? {
                            Ok((index, error)) => TryStage::Handler { index, error },
                            Err(e) if e.fatal => return Err(e),
                            Err(e) => TryStage::Finally(Exit::Error(e)),
                        },
                    },
                    TryStage::Handler { index, .. } => {
                        let index = *index;
                        let Some(Frame::Try(TryStage::Handler { error, .. })) = cur.get_mut(depth) else {
                            unreachable!("matched a handler")
                        };
                        let error = std::mem::replace(error, RtError::new(""));
                        self.handling.push(error);
                        let result = self.gen_block(&handlers[index].body, env, cur, depth + 1, sent).await;
                        let error = self.handling.pop().expect("pushed above");
                        if let Ok(Step::Yield(v)) = result {
                            if let Some(Frame::Try(TryStage::Handler { error: slot, .. })) = cur.get_mut(depth) {
                                *slot = error;
                            }
                            return Ok(Step::Yield(v));
                        }
                        if let Some(name) = &handlers[index].name {
                            env.vars.borrow_mut().remove(name);
                        }
                        match result {
                            Ok(Step::Flow(flow)) => TryStage::Finally(Exit::Flow(flow)),
                            Err(e) if e.fatal => return Err(e),
                            Err(e) => TryStage::Finally(Exit::Error(e)),
                            Ok(Step::Yield(_)) => unreachable!("returned above"),
                        }
                    }
                    TryStage::Else => match self.gen_block(orelse, env, cur, depth + 1, sent).await {
                        Ok(Step::Yield(v)) => return Ok(Step::Yield(v)),
                        Ok(Step::Flow(flow)) => TryStage::Finally(Exit::Flow(flow)),
                        Err(e) if e.fatal => return Err(e),
                        Err(e) => TryStage::Finally(Exit::Error(e)),
                    },
                    TryStage::Finally(_) => {
                        let step = self.gen_block(finalbody, env, cur, depth + 1, sent).await?;
                        if let Step::Yield(v) = step {
                            return Ok(Step::Yield(v));
                        }
                        let Frame::Try(TryStage::Finally(exit)) = cur.remove(depth) else {
                            unreachable!("in the finally stage")
                        };
                        cur.truncate(depth);
                        return match (step, exit) {
                            (Step::Flow(Flow::Normal), Exit::Flow(flow)) => Ok(Step::Flow(flow)),
                            (Step::Flow(Flow::Normal), Exit::Error(e)) => Err(e),
                            (step, _) => Ok(step),
                        };
                    }
                };
                cur.truncate(depth + 1);
                cur[depth] = Frame::Try(next);
            }
        })
    }

    /// `with`'s entry: the value `as` binds, and how to leave.
    pub(super) fn enter_context<'a>(&'a mut self, manager: &'a Value) -> LocalFuture<'a, R<(Value, ContextExit)>> {
        Box::pin(async move {
            if let Value::Native(n) = manager {
                if let super::value::Native::PrecisionScope(p) = &**n {
                    let saved = std::mem::replace(&mut self.ctx.default_precision, *p);
                    return Ok((Value::None, ContextExit::Precision(saved)));
                }
            }
            let has = |name| match manager {
                Value::Instance(i) => self.class_has(&i.class, name),
                _ => false,
            };
            if !has("__enter__") || !has("__exit__") {
                return type_err(format!(
                    "'{}' object does not support the context manager protocol",
                    manager.type_name()
                ));
            }
            let entered = self.call_method_of(manager, "__enter__", vec![]).await?;
            Ok((entered, ContextExit::Object(manager.clone())))
        })
    }

    /// `with`'s exit, told of the error leaving the block if any: whether `__exit__`
    /// suppressed it.
    pub(super) fn exit_context<'a>(
        &'a mut self,
        exit: ContextExit,
        error: Option<&'a mut RtError>,
    ) -> LocalFuture<'a, R<bool>> {
        Box::pin(async move {
            match exit {
                ContextExit::Precision(saved) => {
                    self.ctx.default_precision = saved;
                    Ok(false)
                }
                ContextExit::Object(manager) => {
                    let args = match error {
                        Some(e) if !e.fatal => {
                            let exception = self.exception_object(e);
                            let class = match &exception {
                                Value::Instance(i) => Value::Class(i.class.clone()),
                                _ => Value::None,
                            };
                            vec![class, exception, Value::None]
                        }
                        Some(_) => return Ok(false),
                        None => vec![Value::None, Value::None, Value::None],
                    };
                    let suppress = args[0].clone();
                    let result = self.call_method_of(&manager, "__exit__", args).await?;
                    Ok(!matches!(suppress, Value::None) && self.truth(&result).await?)
                }
            }
        })
    }

    /// The first handler matching `error` (its name bound to the exception), or the error.
    pub(super) fn find_handler<'a>(
        &'a mut self,
        error: RtError,
        handlers: &'a [ExceptHandler],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Result<(usize, RtError), RtError>>> {
        Box::pin(async move {
            if error.fatal {
                return Ok(Err(error));
            }
            let mut error = error;
            for (index, h) in handlers.iter().enumerate() {
                let matched = match &h.kind {
                    None => true,
                    Some(kind) => {
                        let kind_value = self.eval(kind, env).await?;
                        self.exception_matches(&mut error, &kind_value).map_err(|e| e.at(kind.span))?
                    }
                };
                if matched {
                    let exception = self.exception_object(&mut error);
                    if let Some(name) = &h.name {
                        self.bind(env, name, exception);
                    }
                    return Ok(Ok((index, error)));
                }
            }
            Ok(Err(error))
        })
    }
}
