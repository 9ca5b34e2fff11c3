//! Expressions. As for statements, each construct is its own boxed future and `eval` only
//! dispatches, so deep Python recursion costs little native stack.

use super::format::format_value;
use super::value::{Dict, Value};
use super::{new_scope, Env, Interp, R};
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
                ExprKind::Str(s) => Ok(Value::str(s)),
                ExprKind::Bool(b) => Ok(Value::Bool(*b)),
                ExprKind::None => Ok(Value::None),
                ExprKind::Ellipsis => Ok(Value::Ellipsis),
                ExprKind::FString(parts) => self.eval_fstring(parts, env).await,
                ExprKind::List(items) => self.eval_all(items, env).await.map(Value::list),
                ExprKind::Tuple(items) => self.eval_all(items, env).await.map(Value::tuple),
                ExprKind::Dict(items) => self.eval_dict(items, env).await,
                ExprKind::ListComp { elt, clauses } => self.eval_list_comp(elt, clauses, env).await,
                ExprKind::DictComp { key, value, clauses } => self.eval_dict_comp(key, value, clauses, env).await,
                ExprKind::Attr(obj, name) => self.eval_attr(obj, name, env).await,
                ExprKind::Subscript(obj, index) => self.eval_subscript(obj, index, env).await,
                ExprKind::Slice(a, b, c) => self.eval_slice([a, b, c], env).await,
                ExprKind::Call { func, args } => self.eval_call(func, args, env).await,
                ExprKind::Unary(op, operand) => self.eval_unary(*op, operand, env).await,
                ExprKind::Binary(op, a, b) => self.eval_binary(*op, a, b, env).await,
                ExprKind::And(a, b) => self.eval_logic(true, a, b, env).await,
                ExprKind::Or(a, b) => self.eval_logic(false, a, b, env).await,
                ExprKind::Compare(first, rest) => self.eval_compare(first, rest, env).await,
                ExprKind::IfExp { cond, then, orelse } => self.eval_if(cond, then, orelse, env).await,
                ExprKind::Lambda(def) => self.make_function(def, env).await,
            };
            value.map_err(|err| err.at(e.span))
        })
    }

    pub(super) fn eval_all<'a>(&'a mut self, items: &'a [Expr], env: &'a Env) -> LocalFuture<'a, R<Vec<Value>>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(self.eval(item, env).await?);
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
                            Some('s') => Value::str(&super::value::to_str(&v)),
                            Some(_) => Value::str(&super::value::repr(&v)),
                            None => v,
                        };
                        s.push_str(&format_value(&v, spec).map_err(|e| e.at(expr.span))?);
                    }
                }
                // `x = f"{x}{x}"` in a loop doubles: bounded like `x + x`.
                super::ops::check_len(s.len())?;
            }
            Ok(Value::str(&s))
        })
    }

    fn eval_dict<'a>(&'a mut self, items: &'a [(Expr, Expr)], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut d = Dict::default();
            for (k, v) in items {
                let key = self.eval(k, env).await?;
                let value = self.eval(v, env).await?;
                d.insert(key, value).map_err(|e| e.at(k.span))?;
            }
            Ok(Value::Dict(Rc::new(RefCell::new(d))))
        })
    }

    fn eval_list_comp<'a>(
        &'a mut self,
        elt: &'a Expr,
        clauses: &'a [CompFor],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let scope = new_scope(Some(env.clone()), Rc::new(Vec::new()));
            let mut out = Vec::new();
            self.comprehension(clauses, &[elt], &scope, &mut out).await?;
            Ok(Value::list(out.into_iter().flatten().collect()))
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
            let items = self.iterate(&iterable).map_err(|e| e.at(clause.iter.span))?;
            'items: for item in items {
                self.step()?;
                self.assign(&clause.target, item, scope).await?;
                for cond in &clause.conds {
                    let c = self.eval(cond, scope).await?;
                    if !self.truthy(&c).map_err(|e| e.at(cond.span))? {
                        continue 'items;
                    }
                }
                self.comprehension(rest, elts, scope, out).await?;
            }
            Ok(())
        })
    }

    fn eval_attr<'a>(&'a mut self, obj: &'a Expr, name: &'a str, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let obj = self.eval(obj, env).await?;
            self.get_attr(&obj, name).await
        })
    }

    fn eval_subscript<'a>(&'a mut self, obj: &'a Expr, index: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let obj = self.eval(obj, env).await?;
            let index = self.eval(index, env).await?;
            self.get_item(&obj, &index).await
        })
    }

    fn eval_slice<'a>(&'a mut self, bounds: [&'a Option<Box<Expr>>; 3], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut values = [None, None, None];
            for (slot, bound) in values.iter_mut().zip(bounds) {
                if let Some(expr) = bound {
                    let v = self.eval(expr, env).await?;
                    *slot = self.slice_bound(&v).map_err(|e| e.at(expr.span))?;
                }
            }
            let [a, b, c] = values;
            Ok(Value::Slice(a, b, c))
        })
    }

    fn eval_call<'a>(&'a mut self, func: &'a Expr, args: &'a [Arg], env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let f = self.eval(func, env).await?;
            let mut positional = Vec::new();
            let mut keywords = Vec::new();
            for a in args {
                match a {
                    Arg::Positional(e) => positional.push(self.eval(e, env).await?),
                    Arg::Star(e) => {
                        let v = self.eval(e, env).await?;
                        positional.extend(self.iterate(&v).map_err(|err| err.at(e.span))?);
                    }
                    Arg::Keyword(k, e) => keywords.push((k.clone(), self.eval(e, env).await?)),
                }
            }
            self.call(f, positional, keywords).await
        })
    }

    fn eval_unary<'a>(&'a mut self, op: UnaryOp, operand: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let v = self.eval(operand, env).await?;
            if op == UnaryOp::Not {
                return Ok(Value::Bool(!self.truthy(&v)?));
            }
            self.unary(op, v).await
        })
    }

    fn eval_binary<'a>(&'a mut self, op: BinOp, a: &'a Expr, b: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let a = self.eval(a, env).await?;
            let b = self.eval(b, env).await?;
            self.binary(op, a, b).await
        })
    }

    /// `a and b` (`is_and`) or `a or b`: short-circuit, yielding an operand.
    fn eval_logic<'a>(&'a mut self, is_and: bool, a: &'a Expr, b: &'a Expr, env: &'a Env) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let left = self.eval(a, env).await?;
            if self.truthy(&left).map_err(|e| e.at(a.span))? != is_and {
                return Ok(left);
            }
            self.eval(b, env).await
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
                result = self.compare(*op, &left, &right).await?;
                if i + 1 < rest.len() && !self.truthy(&result)? {
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
            let branch = if self.truthy(&c).map_err(|e| e.at(cond.span))? { then } else { orelse };
            self.eval(branch, env).await
        })
    }
}
