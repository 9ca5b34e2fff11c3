//! Statements.
//!
//! Every construct is its own boxed future, and `exec` only dispatches. This keeps the
//! stack frame that each level of Python recursion costs small: an `async` function's frame
//! holds the temporaries of all its branches (unoptimised builds do not overlap them), so one
//! big `match` of inline awaits would cost tens of kilobytes per Python call.

use super::value::{Function, Value};
use super::{range_iter, range_len, Env, Flow, Interp, RtError, R};
use crate::ast::{self, BinOp, Expr, ExprKind, FuncDef, Stmt, StmtKind};
use jaxlite::LocalFuture;
use std::cell::RefCell;
use std::rc::Rc;

impl Interp<'_, '_> {
    pub(super) fn exec_block<'a>(&'a mut self, body: &'a [Stmt], env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            for stmt in body {
                match self.exec(stmt, env).await.map_err(|e| e.at(stmt.span))? {
                    Flow::Normal => {}
                    flow => return Ok(flow),
                }
            }
            Ok(Flow::Normal)
        })
    }

    pub(super) fn exec<'a>(&'a mut self, stmt: &'a Stmt, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            self.step()?;
            match &stmt.kind {
                // A discarded value (`xs.pop()`) may be nested deep: taken apart without recursion.
                StmtKind::Expr(e) => self.eval(e, env).await.map(|v| {
                    super::dismantle([v]);
                    Flow::Normal
                }),
                StmtKind::Assign { targets, value } => self.exec_assign(targets, value, env).await,
                StmtKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value, env).await,
                StmtKind::If { cond, body, orelse } => self.exec_if(cond, body, orelse, env).await,
                StmtKind::While { cond, body, orelse } => self.exec_while(cond, body, orelse, env).await,
                StmtKind::With { context, target, body } => self.exec_with(context, target.as_ref(), body, env).await,
                StmtKind::For { target, iter, body, orelse } => self.exec_for(target, iter, body, orelse, env).await,
                StmtKind::Def(def) => self.exec_def(def, env).await,
                StmtKind::Class(def) => self.exec_class(def, env).await,
                StmtKind::Try { body, handlers, orelse, finalbody } => {
                    self.exec_try(body, handlers, orelse, finalbody, env).await
                }
                StmtKind::Raise { exc, cause } => self.exec_raise(exc.as_ref(), cause.as_ref(), env).await,
                StmtKind::Assert { test, msg } => self.exec_assert(test, msg.as_ref(), env).await,
                StmtKind::Del(targets) => self.exec_del(targets, env).await,
                StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(Flow::Normal),
                StmtKind::AnnAssign { target, annotation, value } => {
                    self.exec_ann_assign(target, annotation, value.as_ref(), env).await
                }
                StmtKind::Return(Some(e)) => self.eval(e, env).await.map(Flow::Return),
                StmtKind::Return(None) => Ok(Flow::Return(Value::None)),
                StmtKind::Break => Ok(Flow::Break),
                StmtKind::Continue => Ok(Flow::Continue),
                StmtKind::Pass => Ok(Flow::Normal),
                StmtKind::Import { modules } => {
                    for (module, alias) in modules {
                        self.exec_import(module, alias.as_deref(), env).await?;
                    }
                    Ok(Flow::Normal)
                }
                StmtKind::FromImport { module, names } => self.exec_from_import(module, names, env).await,
                StmtKind::Match { subject, cases } => self.exec_match(subject, cases, env).await,
            }
        })
    }

    fn exec_assign<'a>(&'a mut self, targets: &'a [Expr], value: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let value = self.eval(value, env).await?;
            for t in targets {
                self.assign(t, value.clone(), env).await?;
            }
            Ok(Flow::Normal)
        })
    }

    fn exec_if<'a>(
        &'a mut self,
        cond: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let c = self.eval(cond, env).await?;
            let branch = if self.truth(&c).await.map_err(|e| e.at(cond.span))? { body } else { orelse };
            self.exec_block(branch, env).await
        })
    }

    /// `with manager [as target]:`: `jax.default_matmul_precision(name)` (the precision holds
    /// for the body and is restored after it), or an object with `__enter__` and `__exit__`,
    /// whose `__exit__` runs however the body ends and may swallow its error.
    fn exec_with<'a>(
        &'a mut self,
        context: &'a Expr,
        target: Option<&'a Expr>,
        body: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let manager = self.eval(context, env).await?;
            let (entered, exit) = self.enter_context(&manager).await.map_err(|e| e.at(context.span))?;
            if let Some(t) = target {
                self.assign(t, entered, env).await?;
            }
            match self.exec_block(body, env).await {
                Ok(flow) => {
                    self.exit_context(exit, None).await.map_err(|e| e.at(context.span))?;
                    Ok(flow)
                }
                Err(mut e) => {
                    if self.exit_context(exit, Some(&mut e)).await.map_err(|e| e.at(context.span))? {
                        Ok(Flow::Normal)
                    } else {
                        Err(e)
                    }
                }
            }
        })
    }

    fn exec_while<'a>(
        &'a mut self,
        cond: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let outer = self.begin_loop();
            let flow = self.while_iterations(cond, body, env, outer).await;
            self.end_loop(outer);
            match flow? {
                // The loop ran out (no `break`): its `else` runs.
                Flow::Continue => self.exec_block(orelse, env).await,
                flow => Ok(flow),
            }
        })
    }

    fn while_iterations<'a>(
        &'a mut self,
        cond: &'a Expr,
        body: &'a [Stmt],
        env: &'a Env,
        report: bool,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            // `Continue` when the condition ended the loop (so `else` runs), `Normal` for a
            // `break`.
            for iteration in 1.. {
                let c = self.eval(cond, env).await?;
                if !self.truth(&c).await.map_err(|e| e.at(cond.span))? {
                    break;
                }
                if report {
                    self.report(cond.span.line, iteration, None);
                }
                match self.exec_block(body, env).await? {
                    Flow::Break => return Ok(Flow::Normal),
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Continue)
        })
    }

    fn exec_for<'a>(
        &'a mut self,
        target: &'a Expr,
        iter: &'a Expr,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let iterable = self.eval(iter, env).await?;
            // Generators, iterators and objects are read one item at a time, as they may
            // never end (a data loader's `while True: yield batch`).
            if matches!(iterable, Value::Iterator(_) | Value::Instance(_) | Value::Class(_)) {
                let it = self.iter_of(&iterable).await.map_err(|e| e.at(iter.span))?;
                let outer = self.begin_loop();
                let flow = self.pull_iterations(target, &it, iter, body, env, outer).await;
                self.end_loop(outer);
                drop(iterable);
                self.close_if_dropped(it).await?;
                return match flow? {
                    Flow::Continue => self.exec_block(orelse, env).await,
                    flow => Ok(flow),
                };
            }
            // Ranges are walked lazily, so a huge range is stopped by the step budget rather
            // than by memory.
            let (items, total): (Box<dyn Iterator<Item = Value>>, u64) = match iterable {
                Value::Range { start, stop, step } => (
                    Box::new(range_iter(start, stop, step).map(Value::Int)),
                    u64::try_from(range_len(start, stop, step)).unwrap_or(u64::MAX),
                ),
                other => {
                    let items = self.iterate_values(&other).await.map_err(|e| e.at(iter.span))?;
                    let n = items.len() as u64;
                    (Box::new(items.into_iter()), n)
                }
            };
            let outer = self.begin_loop();
            let flow = self.for_iterations(target, items, body, env, outer.then_some((iter.span.line, total))).await;
            self.end_loop(outer);
            match flow? {
                Flow::Continue => self.exec_block(orelse, env).await,
                flow => Ok(flow),
            }
        })
    }

    /// The iterations of a `for` over an iterator, pulled one at a time (`Continue` when it
    /// ran out, for the loop's `else`).
    fn pull_iterations<'a>(
        &'a mut self,
        target: &'a Expr,
        it: &'a Value,
        iter: &'a Expr,
        body: &'a [Stmt],
        env: &'a Env,
        report: bool,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let mut i = 0;
            while let Some(item) = self.next_of(it).await.map_err(|e| e.at(iter.span))? {
                i += 1;
                if report {
                    self.report(iter.span.line, i, None);
                }
                self.assign(target, item, env).await?;
                match self.exec_block(body, env).await? {
                    Flow::Break => return Ok(Flow::Normal),
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Continue)
        })
    }

    /// The iterations of a `for`; `report` is the loop's line and length when it reports
    /// progress.
    fn for_iterations<'a>(
        &'a mut self,
        target: &'a Expr,
        items: Box<dyn Iterator<Item = Value>>,
        body: &'a [Stmt],
        env: &'a Env,
        report: Option<(u32, u64)>,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            for (i, item) in items.enumerate() {
                self.step()?;
                if let Some((line, total)) = report {
                    self.report(line, i as u64 + 1, Some(total));
                }
                self.assign(target, item, env).await?;
                match self.exec_block(body, env).await? {
                    Flow::Break => return Ok(Flow::Normal),
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Continue)
        })
    }

    fn exec_def<'a>(&'a mut self, def: &'a Rc<FuncDef>, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let mut f = self.make_function(def, env).await?;
            for d in def.decorators.iter().rev() {
                let decorator = self.eval(d, env).await?;
                f = self.call(decorator, vec![f], vec![]).await.map_err(|e| e.at(d.span))?;
            }
            self.bind(env, &def.name, f);
            Ok(Flow::Normal)
        })
    }

    /// `import a.b.c [as d]`: each package on the way is imported; `a` is bound (or the
    /// whole module as `d`).
    fn exec_import<'a>(&'a mut self, module: &'a str, alias: Option<&'a str>, env: &'a Env) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let mut path = String::new();
            let mut top = None;
            let mut last = Value::None;
            for part in module.split('.') {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(part);
                last = self.import(&path).await?;
                top.get_or_insert_with(|| last.clone());
            }
            match alias {
                Some(a) => self.bind(env, a, last),
                None => {
                    let name = module.split('.').next().unwrap_or(module);
                    self.bind(env, name, top.unwrap_or(Value::None));
                }
            }
            Ok(())
        })
    }

    /// `del a, b[i], c.d`.
    fn exec_del<'a>(&'a mut self, targets: &'a [Expr], env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            for t in targets {
                match &t.kind {
                    ExprKind::Name(n) => self.unbind(env, n).map_err(|e| e.at(t.span))?,
                    ExprKind::Tuple(items) | ExprKind::List(items) => {
                        self.exec_del(items, env).await?;
                    }
                    ExprKind::Subscript(obj, index) => {
                        let obj = self.eval(obj, env).await?;
                        let index = self.eval(index, env).await?;
                        self.del_item(&obj, &index).await.map_err(|e| e.at(t.span))?;
                    }
                    ExprKind::Attr(obj, name) => {
                        let obj = self.eval(obj, env).await?;
                        self.del_attr(&obj, name).await.map_err(|e| e.at(t.span))?;
                    }
                    _ => return Err(RtError::new("cannot delete this expression").at(t.span)),
                }
            }
            Ok(Flow::Normal)
        })
    }

    /// `target: annotation [= value]`: in a class body the annotation is evaluated and kept
    /// in `__annotations__` (what `dataclass` and `NamedTuple` read); elsewhere only the
    /// value is assigned.
    fn exec_ann_assign<'a>(
        &'a mut self,
        target: &'a Expr,
        annotation: &'a Expr,
        value: Option<&'a Expr>,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            if env.class_body {
                if let ExprKind::Name(name) = &target.kind {
                    let ann = self.eval(annotation, env).await?;
                    let existing = env.vars.borrow().get("__annotations__").cloned();
                    let annotations = match existing {
                        Some(Value::Dict(d)) => d,
                        _ => {
                            let d = Rc::new(RefCell::new(super::value::Dict::default()));
                            self.bind(env, "__annotations__", Value::Dict(d.clone()));
                            d
                        }
                    };
                    annotations.borrow_mut().set_str(name, ann);
                }
            }
            if let Some(value) = value {
                let v = self.eval(value, env).await?;
                self.assign(target, v, env).await?;
            }
            Ok(Flow::Normal)
        })
    }

    fn exec_from_import<'a>(
        &'a mut self,
        module: &'a str,
        names: &'a [(String, Option<String>)],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let m = self.import(module).await?;
            if let [(star, None)] = names {
                if star == "*" {
                    for (name, value) in self.public_names(&m).await? {
                        self.bind(env, &name, value);
                    }
                    return Ok(Flow::Normal);
                }
            }
            for (name, alias) in names {
                let value = match self.get_attr(&m, name).await {
                    Ok(v) => v,
                    // `from package import module`.
                    Err(e) if e.kind == super::objects::Builtin::AttributeError => {
                        let sub = format!("{module}.{name}");
                        if pylib::module(&sub).is_some() {
                            self.import(&sub).await?
                        } else {
                            return Err(RtError::of(
                                super::objects::Builtin::ImportError,
                                format!("cannot import name '{name}' from '{module}'"),
                            ));
                        }
                    }
                    Err(e) => return Err(e),
                };
                self.bind(env, alias.as_deref().unwrap_or(name), value);
            }
            Ok(Flow::Normal)
        })
    }

    /// Creates a function value; default values are evaluated now, as Python does.
    pub(super) fn make_function<'a>(&'a mut self, def: &'a Rc<FuncDef>, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut defaults = Vec::new();
            for p in def.params.iter().chain(&def.keyword_only) {
                if let Some(d) = &p.default {
                    defaults.push(self.eval(d, env).await?);
                }
            }
            let mut locals = def.params.iter().chain(&def.keyword_only).map(|p| p.name.clone()).collect::<Vec<_>>();
            locals.extend(def.vararg.clone());
            locals.extend(def.kwarg.clone());
            ast::bound_names(&def.body, &mut locals);
            locals.retain(|n| !def.globals.contains(n) && !def.nonlocals.contains(n));
            // A function does not see the class body it is defined in (Python's rule).
            let mut env = env.clone();
            while env.class_body {
                env = env.parent.clone().expect("a class body has an enclosing scope");
            }
            if self.closure_scopes.last().is_none_or(|s| !std::ptr::eq(s.as_ptr(), Rc::as_ptr(&env))) {
                self.closure_scopes.push(Rc::downgrade(&env));
            }
            let f = Function {
                def: def.clone(),
                defaults,
                env,
                locals: Rc::new(locals),
                class: RefCell::new(std::rc::Weak::new()),
                name: RefCell::new(Rc::from(def.name.as_str())),
                attrs: RefCell::new(Default::default()),
            };
            Ok(Value::Function(Rc::new(f)))
        })
    }

    pub(super) fn assign<'a>(&'a mut self, target: &'a Expr, value: Value, env: &'a Env) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            match &target.kind {
                ExprKind::Name(n) => {
                    self.bind(env, n, value);
                    Ok(())
                }
                ExprKind::Tuple(targets) | ExprKind::List(targets)
                    if targets.iter().any(|t| matches!(t.kind, ExprKind::Starred(_))) =>
                {
                    // `first, *rest = xs`: the starred target takes a list of what the others
                    // leave (the parser allows one).
                    let mut items = self.iterate_values(&value).await.map_err(|e| e.at(target.span))?;
                    let star = targets.iter().position(|t| matches!(t.kind, ExprKind::Starred(_))).unwrap_or(0);
                    let after = targets.len() - star - 1;
                    if items.len() < targets.len() - 1 {
                        let msg = format!(
                            "not enough values to unpack (expected at least {}, got {})",
                            targets.len() - 1,
                            items.len()
                        );
                        return Err(RtError::of(super::objects::Builtin::ValueError, msg).at(target.span));
                    }
                    let tail = items.split_off(items.len() - after);
                    let middle = items.split_off(star);
                    for (t, v) in targets[..star].iter().zip(items) {
                        self.assign(t, v, env).await?;
                    }
                    if let ExprKind::Starred(inner) = &targets[star].kind {
                        self.assign(inner, Value::list(middle), env).await?;
                    }
                    for (t, v) in targets[star + 1..].iter().zip(tail) {
                        self.assign(t, v, env).await?;
                    }
                    Ok(())
                }
                ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                    let items = self.iterate_values(&value).await.map_err(|e| e.at(target.span))?;
                    if items.len() != targets.len() {
                        let msg = if items.len() > targets.len() {
                            format!("too many values to unpack (expected {})", targets.len())
                        } else {
                            format!("not enough values to unpack (expected {}, got {})", targets.len(), items.len())
                        };
                        return Err(RtError::of(super::objects::Builtin::ValueError, msg).at(target.span));
                    }
                    for (t, v) in targets.iter().zip(items) {
                        self.assign(t, v, env).await?;
                    }
                    Ok(())
                }
                ExprKind::Subscript(obj, index) => {
                    let obj = self.eval(obj, env).await?;
                    let index = self.eval(index, env).await?;
                    self.set_item(&obj, index, value).await.map_err(|e| e.at(target.span))
                }
                ExprKind::Attr(obj, name) => {
                    let obj = self.eval(obj, env).await?;
                    self.set_attr(&obj, name, value).await.map_err(|e| e.at(target.span))
                }
                _ => Err(RtError::new("cannot assign to this expression").at(target.span)),
            }
        })
    }

    fn aug_assign<'a>(
        &'a mut self,
        target: &'a Expr,
        op: BinOp,
        value: &'a Expr,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            if let ExprKind::Subscript(obj, index) = &target.kind {
                let obj = self.eval(obj, env).await?;
                let index = self.eval(index, env).await?;
                let current = self.get_item(&obj, &index).await.map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value, env).await?;
                self.mark_source(target.span);
                let new = self.inplace(op, current, rhs).await.map_err(|e| e.at(target.span))?;
                self.set_item(&obj, index, new).await.map_err(|e| e.at(target.span))?;
                return Ok(Flow::Normal);
            }
            if let ExprKind::Attr(obj, name) = &target.kind {
                // The object is evaluated once (`self.count += 1`).
                let obj = self.eval(obj, env).await?;
                let current = self.get_attr(&obj, name).await.map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value, env).await?;
                self.mark_source(target.span);
                let new = self.inplace(op, current, rhs).await.map_err(|e| e.at(target.span))?;
                self.set_attr(&obj, name, new).await.map_err(|e| e.at(target.span))?;
                return Ok(Flow::Normal);
            }
            let current = self.eval(target, env).await?;
            let rhs = self.eval(value, env).await?;
            self.mark_source(target.span);
            let new = self.inplace(op, current, rhs).await.map_err(|e| e.at(target.span))?;
            self.assign(target, new, env).await?;
            Ok(Flow::Normal)
        })
    }

    /// `op=`: a list's `+=` extends it in place (`list.__iadd__`), an object's `__iadd__`
    /// (and the like) updates it, anything else is `a = a op b`.
    fn inplace<'a>(&'a mut self, op: BinOp, current: Value, rhs: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let (BinOp::Add, Value::List(l)) = (op, &current) {
                let extra = self.collect(&rhs).await?;
                l.borrow_mut().extend(extra);
                return Ok(current);
            }
            // A NumPy array is updated in place: every name holding it sees the change.
            if let Value::Host(h) = &current {
                if !matches!(rhs, Value::Array(_)) {
                    return self.host_inplace(h, op, rhs).await;
                }
            }
            if let Value::Instance(_) = &current {
                let name = super::classes::inplace_dunder(op);
                if let Some(r) = self.call_special(&current, &name, vec![rhs.clone()]).await? {
                    if !matches!(r, Value::NotImplemented) {
                        return Ok(r);
                    }
                }
            }
            self.binary(op, current, rhs).await
        })
    }

    /// Calls a user-defined function in a fresh scope whose parent is its defining scope (a
    /// generator function: makes the generator).
    pub(super) fn call_function<'a>(
        &'a mut self,
        f: &'a Rc<Function>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let scope = Rc::new(super::Scope {
                vars: RefCell::new(std::collections::HashMap::new()),
                parent: Some(f.env.clone()),
                locals: f.locals.clone(),
                def: Some(f.def.clone()),
                class_body: false,
                order: RefCell::new(Vec::new()),
            });
            super::bind_arguments(f, args, kwargs, &scope)?;
            if let Some(class) = f.class.borrow().upgrade() {
                scope.vars.borrow_mut().insert("__class__".into(), Value::Class(class));
            }
            if f.def.is_generator {
                return Ok(self.make_generator(f, scope));
            }
            self.enter_call()?;
            // A function of the script is the innermost frame of its code while it runs; the
            // caller's place comes back with the caller.
            let outer = (f.def.span.file == 0).then(|| {
                let frame = std::mem::replace(&mut self.frame, Rc::from(f.def.qualname.as_str()));
                (frame, self.ctx.source.clone())
            });
            let result = self.exec_block(&f.def.body, &scope).await;
            if let Some((frame, source)) = outer {
                self.frame = frame;
                self.ctx.source = source;
            }
            self.depth -= 1;
            // The call's locals go without recursion when nothing closed over them (a deeply
            // nested local list would otherwise overflow the stack as the scope drops).
            if Rc::strong_count(&scope) == 1 {
                let locals = std::mem::take(&mut *scope.vars.borrow_mut());
                super::dismantle(locals.into_values());
            }
            match result? {
                Flow::Return(v) => Ok(v),
                _ => Ok(Value::None),
            }
        })
    }
}

/// Native stack the interpreter may use, in bytes. The Python frame limit keeps an optimised
/// build far below this (about 2 KiB of stack per Python call); unoptimised builds use several
/// times more per call, and this backstop turns what would be a stack overflow into the same
/// recursion error.
pub(super) const STACK_BUDGET: usize = 1 << 20;

/// The address of a local: where the stack (which grows down, natively and in wasm's shadow
/// stack) currently is.
#[inline(never)]
pub(super) fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}
