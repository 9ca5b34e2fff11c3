//! Statements.
//!
//! Every construct is its own boxed future, and `exec` only dispatches. This keeps the
//! stack frame that each level of Python recursion costs small: an `async` function's frame
//! holds the temporaries of all its branches (unoptimised builds do not overlap them), so one
//! big `match` of inline awaits would cost tens of kilobytes per Python call.

use super::value::{Function, Value};
use super::{jax, new_scope, range_iter, range_len, set_item, Env, Flow, Interp, RtError, R};
use crate::ast::{self, BinOp, Expr, ExprKind, FuncDef, Stmt, StmtKind};
use jaxlite::LocalFuture;
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

    fn exec<'a>(&'a mut self, stmt: &'a Stmt, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
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
                StmtKind::While { cond, body } => self.exec_while(cond, body, env).await,
                StmtKind::With { context, target, body } => self.exec_with(context, target.as_ref(), body, env).await,
                StmtKind::For { target, iter, body } => self.exec_for(target, iter, body, env).await,
                StmtKind::Def(def) => self.exec_def(def, env).await,
                StmtKind::Return(Some(e)) => self.eval(e, env).await.map(Flow::Return),
                StmtKind::Return(None) => Ok(Flow::Return(Value::None)),
                StmtKind::Break => Ok(Flow::Break),
                StmtKind::Continue => Ok(Flow::Continue),
                StmtKind::Pass => Ok(Flow::Normal),
                StmtKind::Import { modules } => {
                    for (module, alias) in modules {
                        self.exec_import(module, alias.as_deref(), env)?;
                    }
                    Ok(Flow::Normal)
                }
                StmtKind::FromImport { module, names } => self.exec_from_import(module, names, env).await,
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

    /// `with jax.default_matmul_precision(name):`, the one context manager there is: the
    /// precision holds for the body and is restored after it, however the body ends.
    fn exec_with<'a>(
        &'a mut self,
        context: &'a Expr,
        target: Option<&'a Expr>,
        body: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let manager = self.eval(context, env).await?;
            let precision = match &manager {
                Value::Native(n) => match &**n {
                    super::value::Native::PrecisionScope(p) => Some(*p),
                    _ => None,
                },
                _ => None,
            };
            let Some(precision) = precision else {
                return Err(RtError::new(format!(
                    "'{}' object does not support the context manager protocol",
                    manager.type_name()
                ))
                .at(context.span));
            };
            if let Some(t) = target {
                self.assign(t, Value::None, env).await?;
            }
            let saved = std::mem::replace(&mut self.ctx.default_precision, precision);
            let flow = self.exec_block(body, env).await;
            self.ctx.default_precision = saved;
            flow
        })
    }

    fn exec_while<'a>(&'a mut self, cond: &'a Expr, body: &'a [Stmt], env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let outer = self.begin_loop();
            let flow = self.while_iterations(cond, body, env, outer).await;
            self.end_loop(outer);
            flow
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
            for iteration in 1.. {
                let c = self.eval(cond, env).await?;
                if !self.truth(&c).await.map_err(|e| e.at(cond.span))? {
                    break;
                }
                if report {
                    self.report(cond.span.line, iteration, None);
                }
                match self.exec_block(body, env).await? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Normal)
        })
    }

    fn exec_for<'a>(
        &'a mut self,
        target: &'a Expr,
        iter: &'a Expr,
        body: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let iterable = self.eval(iter, env).await?;
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
            flow
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
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Normal)
        })
    }

    fn exec_def<'a>(&'a mut self, def: &'a Rc<FuncDef>, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let mut f = self.make_function(def, env).await?;
            for d in def.decorators.iter().rev() {
                let decorator = self.eval(d, env).await?;
                f = self.call(decorator, vec![f], vec![]).await.map_err(|e| e.at(d.span))?;
            }
            env.vars.borrow_mut().insert(def.name.clone(), f);
            Ok(Flow::Normal)
        })
    }

    fn exec_import(&mut self, module: &str, alias: Option<&str>, env: &Env) -> R<()> {
        let id = jax::import_module(module)?;
        let (name, value) = match alias {
            Some(a) => (a.to_string(), Value::Module(id)),
            // `import jax.numpy` binds `jax`.
            None => {
                let top = module.split('.').next().unwrap_or(module);
                (top.to_string(), Value::Module(jax::import_module(top)?))
            }
        };
        env.vars.borrow_mut().insert(name, value);
        Ok(())
    }

    fn exec_from_import<'a>(
        &'a mut self,
        module: &'a str,
        names: &'a [(String, Option<String>)],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let id = jax::import_module(module)?;
            for (name, alias) in names {
                let value = self.get_attr(&Value::Module(id), name).await?;
                env.vars.borrow_mut().insert(alias.clone().unwrap_or_else(|| name.clone()), value);
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
            if self.closure_scopes.last().is_none_or(|s| !std::ptr::eq(s.as_ptr(), Rc::as_ptr(env))) {
                self.closure_scopes.push(Rc::downgrade(env));
            }
            let f = Function { def: def.clone(), defaults, env: env.clone(), locals: Rc::new(locals) };
            Ok(Value::Function(Rc::new(f)))
        })
    }

    pub(super) fn assign<'a>(&'a mut self, target: &'a Expr, value: Value, env: &'a Env) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            match &target.kind {
                ExprKind::Name(n) => {
                    let old = env.vars.borrow_mut().insert(n.clone(), value);
                    // (A deeply nested old value is taken apart without recursion.)
                    super::dismantle(old);
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
                        return Err(RtError::new(msg).at(target.span));
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
                        return Err(RtError::new(msg).at(target.span));
                    }
                    for (t, v) in targets.iter().zip(items) {
                        self.assign(t, v, env).await?;
                    }
                    Ok(())
                }
                ExprKind::Subscript(obj, index) => {
                    let obj = self.eval(obj, env).await?;
                    let index = self.eval(index, env).await?;
                    set_item(&obj, index, value).map_err(|e| e.at(target.span))
                }
                ExprKind::Attr(_, name) => Err(RtError::new(format!("cannot set attribute '{name}'")).at(target.span)),
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
                let new = self.binary(op, current, rhs).await.map_err(|e| e.at(target.span))?;
                set_item(&obj, index, new).map_err(|e| e.at(target.span))?;
                return Ok(Flow::Normal);
            }
            let current = self.eval(target, env).await?;
            let rhs = self.eval(value, env).await?;
            // `xs += ys` extends the list in place, as Python's `list.__iadd__` does.
            if let (BinOp::Add, Value::List(l)) = (op, &current) {
                let extra = self.iterate(&rhs).map_err(|e| e.at(value.span))?;
                l.borrow_mut().extend(extra);
                return Ok(Flow::Normal);
            }
            let new = self.binary(op, current, rhs).await.map_err(|e| e.at(target.span))?;
            self.assign(target, new, env).await?;
            Ok(Flow::Normal)
        })
    }

    /// Calls a user-defined function in a fresh scope whose parent is its defining scope.
    pub(super) fn call_function<'a>(
        &'a mut self,
        f: &'a Rc<Function>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let scope = new_scope(Some(f.env.clone()), f.locals.clone());
            super::bind_arguments(f, args, kwargs, &scope)?;
            // Both limits give one message, so what a script sees does not depend on which
            // fires first (in an unoptimised build, the stack does).
            if self.depth >= self.limits.recursion || self.stack_base.saturating_sub(stack_position()) > STACK_BUDGET {
                return Err(RtError::new(format!(
                    "maximum recursion depth exceeded (the playground allows {} nested calls, fewer when \
                     the interpreter's stack runs out first)",
                    self.limits.recursion
                )));
            }
            self.depth += 1;
            let result = self.exec_block(&f.def.body, &scope).await;
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
const STACK_BUDGET: usize = 1 << 20;

/// The address of a local: where the stack (which grows down, natively and in wasm's shadow
/// stack) currently is.
#[inline(never)]
pub(super) fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}
