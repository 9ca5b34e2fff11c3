//! Expressions. As for statements, each construct is its own boxed future and `eval` only
//! dispatches, so deep Python recursion costs little native stack.

use super::format::format_value;
use super::value::{Dict, Value};
use super::{err, new_scope, Env, Interp, R};
use crate::ast::{Arg, BinOp, CmpOp, CompFor, Expr, ExprKind, FPart, UnaryOp};
use jaxlite::LocalFuture;
use std::cell::RefCell;
use std::rc::Rc;

impl Interp<'_, '_> {
    pub(super) fn eval<'a>(&'a mut self, e: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            self.step().map_err(|err| err.at(e.span))?;
            let value = match &e.kind {
                ExprKind::Name(n) => self.lookup(n, env),
                ExprKind::Int(i) => Ok(Value::Int(*i)),
                ExprKind::Float(x) => Ok(Value::Float(*x)),
                ExprKind::Imag(x) => Ok(Value::Complex(0.0, *x)),
                ExprKind::Str(s) => Ok(Value::str(s)),
                ExprKind::Bool(b) => Ok(Value::Bool(*b)),
                ExprKind::None => Ok(Value::None),
                ExprKind::Ellipsis => Ok(Value::Ellipsis),
                ExprKind::FString(parts) => self.eval_fstring(parts, env).await,
                ExprKind::List(items) => self.eval_all(items, env).await.map(Value::list),
                ExprKind::Tuple(items) => self.eval_all(items, env).await.map(Value::tuple),
                ExprKind::Dict(items) => self.eval_dict(items, env).await,
                ExprKind::ListComp { elt, clauses } => self.eval_list_comp(elt, clauses, env, false).await,
                ExprKind::DictComp { key, value, clauses } => self.eval_dict_comp(key, value, clauses, env).await,
                ExprKind::Attr(..) | ExprKind::Subscript(..) | ExprKind::Call { .. } => self.eval_postfix(e, env).await,
                ExprKind::Slice(a, b, c) => self.eval_slice([a, b, c], env).await,
                ExprKind::Unary(op, operand) => self.eval_unary(*op, operand, e.span, env).await,
                ExprKind::Binary(op, a, b, start) => self.eval_binary(*op, a, b, *start, env).await,
                ExprKind::And(a, b) => self.eval_logic(true, a, b, env).await,
                ExprKind::Or(a, b) => self.eval_logic(false, a, b, env).await,
                ExprKind::Compare(first, rest) => self.eval_compare(first, rest, env).await,
                ExprKind::IfExp { cond, then, orelse } => self.eval_if(cond, then, orelse, env).await,
                ExprKind::Lambda(def) => self.make_function(def, env).await,
                ExprKind::Starred(_) => err("can't use starred expression here"),
                ExprKind::Set(items) => match self.eval_all(items, env).await {
                    Ok(items) => super::builtins::make_set(items, false),
                    Err(e) => Err(e),
                },
                ExprKind::SetComp { elt, clauses } => self.eval_list_comp(elt, clauses, env, true).await,
                ExprKind::GeneratorExp { def, first } => self.eval_generator_exp(def, first, env).await,
                ExprKind::NamedExpr(name, value) => self.eval_named(name, value, env).await,
                ExprKind::Yield(_) | ExprKind::YieldFrom(_) => super::unsupported(
                    "'yield' is supported as a statement or as the value of an assignment in the playground, not inside an expression",
                ),
            };
            value.map_err(|err| err.at(e.span))
        })
    }

    /// The items of a tuple or list display, `*xs` unpacked in place.
    pub(super) fn eval_all<'a>(&'a mut self, items: &'a [Expr], env: &'a Env) -> LocalFuture<'a, R<Vec<Value>>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match &item.kind {
                    ExprKind::Starred(e) => {
                        let v = self.eval(e, env).await?;
                        out.extend(self.iterate_values(&v).await.map_err(|err| err.at(e.span))?);
                    }
                    _ => out.push(self.eval(item, env).await?),
                }
            }
            Ok(out)
        })
    }

    fn eval_fstring<'a>(&'a mut self, parts: &'a [FPart], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut s = String::new();
            for p in parts {
                match p {
                    FPart::Text(t) => s.push_str(t),
                    FPart::Field { expr, spec, conversion } => {
                        let v = self.eval(expr, env).await?;
                        let v = match conversion {
                            Some('s') => Value::str(&self.py_str(&v).await?),
                            Some(_) => Value::str(&self.py_repr(&v).await?),
                            None => v,
                        };
                        s.push_str(&self.format_field(v, spec).await.map_err(|e| e.at(expr.span))?);
                    }
                }
                // `x = f"{x}{x}"` in a loop doubles: bounded like `x + x`.
                super::ops::check_len(s.len())?;
            }
            Ok(Value::str(&s))
        })
    }

    fn eval_dict<'a>(&'a mut self, items: &'a [(Option<Expr>, Expr)], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut d = Dict::default();
            for (k, v) in items {
                let Some(k) = k else {
                    // `**other`: its items, in order.
                    let other = self.eval(v, env).await?;
                    let other = super::classes::unwrap_base(&other);
                    let Value::Dict(other) = &other else {
                        return err(format!("'{}' object is not a mapping", other.type_name()));
                    };
                    let entries = other.borrow().entries.clone();
                    for (key, value) in entries {
                        d.insert(key, value)?;
                    }
                    continue;
                };
                let key = self.eval(k, env).await?;
                let value = self.eval(v, env).await?;
                d.insert(key, value).map_err(|e| e.at(k.span))?;
            }
            Ok(Value::Dict(Rc::new(RefCell::new(d))))
        })
    }

    /// A generator expression: its first iterable now, the rest when the generator runs.
    fn eval_generator_exp<'a>(
        &'a mut self,
        def: &'a Rc<crate::ast::FuncDef>,
        first: &'a Expr,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let iterable = self.eval(first, env).await?;
            let it = self.iter_of(&iterable).await.map_err(|e| e.at(first.span))?;
            let f = self.make_function(def, env).await?;
            let Value::Function(f) = f else { unreachable!("make_function makes a function") };
            self.call_function(&f, vec![it], vec![]).await
        })
    }

    /// `name := value`: bound in the enclosing function's scope (not a comprehension's).
    fn eval_named<'a>(&'a mut self, name: &'a str, value: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let v = self.eval(value, env).await?;
            let mut target = env.clone();
            while target.def.is_none() && !target.class_body && target.parent.is_some() && target.locals.is_empty() {
                match target.parent.clone() {
                    Some(p) if !target.vars.borrow().contains_key(name) => target = p,
                    _ => break,
                }
            }
            self.bind(&target, name, v.clone());
            Ok(v)
        })
    }

    /// A list comprehension, or with `set` a set comprehension.
    fn eval_list_comp<'a>(
        &'a mut self,
        elt: &'a Expr,
        clauses: &'a [CompFor],
        env: &'a Env,
        set: bool,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let scope = new_scope(Some(env.clone()), Rc::new(Vec::new()));
            let mut out = Vec::new();
            self.comprehension(clauses, &[elt], &scope, &mut out).await?;
            let items = out.into_iter().flatten().collect();
            if set {
                super::builtins::make_set(items, false)
            } else {
                Ok(Value::list(items))
            }
        })
    }

    fn eval_dict_comp<'a>(
        &'a mut self,
        key: &'a Expr,
        value: &'a Expr,
        clauses: &'a [CompFor],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let scope = new_scope(Some(env.clone()), Rc::new(Vec::new()));
            let mut out = Vec::new();
            self.comprehension(clauses, &[key, value], &scope, &mut out).await?;
            let mut d = Dict::default();
            for pair in out {
                let mut pair = pair.into_iter();
                if let (Some(k), Some(v)) = (pair.next(), pair.next()) {
                    d.insert(k, v).map_err(|e| e.at(key.span))?;
                }
            }
            Ok(Value::Dict(Rc::new(RefCell::new(d))))
        })
    }

    /// Runs the `for` clauses of a comprehension (comprehensions have their own scope);
    /// each innermost iteration evaluates `elts` into `out`.
    fn comprehension<'a>(
        &'a mut self,
        clauses: &'a [CompFor],
        elts: &'a [&'a Expr],
        scope: &'a Env,
        out: &'a mut Vec<Vec<Value>>,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let Some((clause, rest)) = clauses.split_first() else {
                let mut values = Vec::with_capacity(elts.len());
                for e in elts {
                    values.push(self.eval(e, scope).await?);
                }
                out.push(values);
                return Ok(());
            };
            let iterable = self.eval(&clause.iter, scope).await?;
            let items = self.iterate_values(&iterable).await.map_err(|e| e.at(clause.iter.span))?;
            'items: for item in items {
                self.step()?;
                self.assign(&clause.target, item, scope).await?;
                for cond in &clause.conds {
                    let c = self.eval(cond, scope).await?;
                    if !self.truth(&c).await.map_err(|e| e.at(cond.span))? {
                        continue 'items;
                    }
                }
                self.comprehension(rest, elts, scope, out).await?;
            }
            Ok(())
        })
    }

    fn eval_slice<'a>(&'a mut self, bounds: [&'a Option<Box<Expr>>; 3], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut objects = [Value::None, Value::None, Value::None];
            for (slot, bound) in objects.iter_mut().zip(bounds) {
                if let Some(expr) = bound {
                    *slot = self.eval(expr, env).await?;
                }
            }
            // Float and complex bounds make a slice only a grid reads (`np.mgrid[0:1:30j]`).
            if objects.iter().any(|v| matches!(v, Value::Float(_) | Value::Complex(..))) {
                return Ok(Value::native(super::value::Native::ObjectSlice(objects)));
            }
            let mut values = [None, None, None];
            for ((slot, bound), v) in values.iter_mut().zip(bounds).zip(&objects) {
                if let Some(expr) = bound {
                    *slot = self.slice_bound(v).map_err(|e| e.at(expr.span))?;
                }
            }
            let [a, b, c] = values;
            Ok(Value::Slice(a, b, c))
        })
    }

    /// `x.name`, `x[index]` and `f(args)`, and chains of them (`x.T.sum()`, `f()()`,
    /// `x[0][1]`, up to the parser's 1,000 links): the innermost object first, then each link
    /// in a loop rather than by recursing down the chain, which would nest futures on the
    /// native stack. Each link's errors carry its own place, as its own expression's would.
    fn eval_postfix<'a>(&'a mut self, e: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let object = match &e.kind {
                ExprKind::Attr(obj, _) | ExprKind::Subscript(obj, _) => obj,
                ExprKind::Call { func, .. } => func,
                _ => e,
            };
            // A lone link (`x.T`, `f(a)`, most of them) needs no list of links.
            if !matches!(object.kind, ExprKind::Attr(..) | ExprKind::Subscript(..) | ExprKind::Call { .. }) {
                let value = self.eval(object, env).await?;
                return self.apply_link(value, e, env).await;
            }
            let mut links = vec![e];
            let mut base = e;
            loop {
                base = match &base.kind {
                    ExprKind::Attr(obj, _) | ExprKind::Subscript(obj, _) => obj,
                    ExprKind::Call { func, .. } => func,
                    _ => break,
                };
                links.push(base);
            }
            links.pop();
            let mut value = self.eval(base, env).await?;
            for link in links.into_iter().rev() {
                if !std::ptr::eq(link, e) {
                    self.step().map_err(|err| err.at(link.span))?;
                }
                value = self.apply_link(value, link, env).await.map_err(|err| err.at(link.span))?;
            }
            Ok(value)
        })
    }

    /// One link of a postfix chain applied to the value of what it follows.
    fn apply_link<'a>(&'a mut self, value: Value, link: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match &link.kind {
                ExprKind::Attr(_, name) => {
                    self.mark_source(link.span);
                    self.get_attr(&value, name).await
                }
                ExprKind::Subscript(_, index) => {
                    let index = self.eval(index, env).await?;
                    self.mark_source(link.span);
                    self.get_item(&value, &index).await
                }
                ExprKind::Call { func, args } => {
                    // `super()` in a method: its class and first argument, from the scope.
                    if args.is_empty()
                        && matches!(&func.kind, ExprKind::Name(n) if n == "super")
                        && matches!(&value, Value::Class(c) if c.builtin == Some(super::objects::Builtin::Super))
                    {
                        return self.zero_arg_super(env);
                    }
                    let mut positional = Vec::new();
                    let mut keywords = Vec::new();
                    for a in args {
                        match a {
                            Arg::Positional(e) => positional.push(self.eval(e, env).await?),
                            Arg::Star(e) => {
                                let v = self.eval(e, env).await?;
                                positional.extend(self.iterate_values(&v).await.map_err(|err| err.at(e.span))?);
                            }
                            Arg::Keyword(k, e) => keywords.push((k.clone(), self.eval(e, env).await?)),
                            Arg::DoubleStar(e) => {
                                let v = self.eval(e, env).await?;
                                keywords.extend(unpack_keywords(&v).map_err(|err| err.at(e.span))?);
                            }
                        }
                    }
                    for (i, (k, _)) in keywords.iter().enumerate() {
                        if keywords[..i].iter().any(|(seen, _)| seen == k) {
                            let name = super::jax::function_name(&value);
                            return err(format!("{name}() got multiple values for keyword argument '{k}'"));
                        }
                    }
                    self.mark_source(link.span);
                    if link.span.file == 0 {
                        self.call_site = Some(link.span);
                    }
                    self.call(value, positional, keywords).await
                }
                _ => Ok(value),
            }
        })
    }

    fn eval_unary<'a>(
        &'a mut self,
        op: UnaryOp,
        operand: &'a Expr,
        span: crate::ast::Span,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let v = self.eval(operand, env).await?;
            if op == UnaryOp::Not {
                return Ok(Value::Bool(!self.truth(&v).await?));
            }
            self.mark_source(span);
            self.unary(op, v).await
        })
    }

    /// Entering one link of a chain evaluated in a loop: the step the recursive evaluation of
    /// its node would have counted (the outermost node, `None`, counted its own), and how its
    /// errors take that node's place.
    fn enter_link(&mut self, span: Option<crate::ast::Span>) -> R<impl Fn(super::RtError) -> super::RtError + Copy> {
        let at = move |err: super::RtError| match span {
            Some(span) => err.at(span),
            None => err,
        };
        if span.is_some() {
            self.step().map_err(at)?;
        }
        Ok(at)
    }

    /// `a op b`. A left-deep chain (`x + y - z`, up to the parser's 1,000 links) runs in a
    /// loop from its leftmost operand rather than by recursing down the left operands, which
    /// would nest a future per link on the native stack.
    fn eval_binary<'a>(
        &'a mut self,
        op: BinOp,
        a: &'a Expr,
        b: &'a Expr,
        start: crate::ast::Span,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // A lone operation (most of them) needs no list of links.
            if !matches!(a.kind, ExprKind::Binary(..)) {
                let a = self.eval(a, env).await?;
                let b = self.eval(b, env).await?;
                self.mark_source(start);
                return self.binary(op, a, b).await;
            }
            // Each link: its operator, right operand, place for errors and start.
            let mut links = vec![(op, b, None, start)];
            let mut leftmost = a;
            while let ExprKind::Binary(op, a, b, start) = &leftmost.kind {
                links.push((*op, b, Some(leftmost.span), *start));
                leftmost = a;
            }
            let mut value = self.eval(leftmost, env).await?;
            for (op, b, span, start) in links.into_iter().rev() {
                let at = self.enter_link(span)?;
                let right = self.eval(b, env).await.map_err(at)?;
                self.mark_source(start);
                value = self.binary(op, value, right).await.map_err(at)?;
            }
            Ok(value)
        })
    }

    /// `a and b` (`is_and`) or `a or b`: short-circuit, yielding an operand. A left-deep chain
    /// (`a or b or c`, `a and b or c`) runs in a loop, as `eval_binary`'s do.
    fn eval_logic<'a>(&'a mut self, is_and: bool, a: &'a Expr, b: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if !matches!(a.kind, ExprKind::And(..) | ExprKind::Or(..)) {
                let left = self.eval(a, env).await?;
                if self.truth(&left).await.map_err(|e| e.at(a.span))? != is_and {
                    return Ok(left);
                }
                return self.eval(b, env).await;
            }
            let mut links = vec![(is_and, b, None)];
            let mut leftmost = a;
            loop {
                let (is_and, a, b) = match &leftmost.kind {
                    ExprKind::And(a, b) => (true, a, b),
                    ExprKind::Or(a, b) => (false, a, b),
                    _ => break,
                };
                links.push((is_and, b, Some(leftmost.span)));
                leftmost = a;
            }
            let mut value = self.eval(leftmost, env).await?;
            let mut value_span = leftmost.span;
            for (is_and, b, span) in links.into_iter().rev() {
                let at = self.enter_link(span)?;
                if self.truth(&value).await.map_err(|e| e.at(value_span)).map_err(at)? == is_and {
                    value = self.eval(b, env).await.map_err(at)?;
                    value_span = b.span;
                }
            }
            Ok(value)
        })
    }

    /// `a < b <= c` is `a < b and b <= c`, with `b` evaluated once.
    fn eval_compare<'a>(
        &'a mut self,
        first: &'a Expr,
        rest: &'a [(CmpOp, Expr)],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut left = self.eval(first, env).await?;
            let mut result = Value::Bool(true);
            for (i, (op, e)) in rest.iter().enumerate() {
                let right = self.eval(e, env).await?;
                self.mark_source(first.span);
                result = self.compare(*op, &left, &right).await?;
                if i + 1 < rest.len() && !self.truth(&result).await? {
                    return Ok(result);
                }
                left = right;
            }
            Ok(result)
        })
    }

    fn eval_if<'a>(
        &'a mut self,
        cond: &'a Expr,
        then: &'a Expr,
        orelse: &'a Expr,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let c = self.eval(cond, env).await?;
            let branch = if self.truth(&c).await.map_err(|e| e.at(cond.span))? { then } else { orelse };
            self.eval(branch, env).await
        })
    }
}

/// The keywords of `f(**mapping)`: a dict's string keys with their values.
pub(super) fn unpack_keywords(v: &Value) -> R<Vec<(String, Value)>> {
    let base = super::classes::unwrap_base(v);
    let Value::Dict(d) = &base else {
        return err(format!("argument after ** must be a mapping, not {}", v.type_name()));
    };
    let entries = d.borrow().entries.clone();
    entries
        .into_iter()
        .map(|(k, v)| match k {
            Value::Str(k) => Ok((k.to_string(), v)),
            _ => err("keywords must be strings"),
        })
        .collect()
}

impl Interp<'_, '_> {
    /// `format(v, spec)`, as an f-string field formats `v`: an object's `__format__`, or its
    /// `str` formatted as a string where its class defines none.
    pub(super) fn format_field<'a>(&'a mut self, v: Value, spec: &'a str) -> LocalFuture<'a, R<String>> {
        Box::pin(async move {
            if !matches!(
                v,
                Value::Instance(_)
                    | Value::Class(_)
                    | Value::List(_)
                    | Value::Tuple(_)
                    | Value::Dict(_)
                    | Value::Set(_)
            ) {
                self.download(&[&v]);
                return format_value(&v, spec);
            }
            if let Some(r) = self.call_special(&v, "__format__", vec![Value::str(spec)]).await? {
                return match r {
                    Value::Str(s) => Ok(s.to_string()),
                    other => err(format!("__format__ must return a str, not {}", other.type_name())),
                };
            }
            if !spec.is_empty() {
                // `object.__format__` takes no spec.
                return err(format!("unsupported format string passed to {}.__format__", v.type_name()));
            }
            self.py_str(&v).await
        })
    }
}
