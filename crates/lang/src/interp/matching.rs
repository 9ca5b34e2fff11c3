//! The `match` statement (PEP 634): a subject tried against each case's pattern in turn.
//! A pattern's captures are collected as it matches and bound only when the whole pattern
//! (then the guard) succeeds, so a failed case leaves no half-made bindings.

use super::value::Value;
use super::{Env, Flow, Interp, LocalFuture, R};
use crate::ast::{CmpOp, Expr, ExprKind, MatchCase, Pattern};

/// The built-in types whose one positional sub-pattern matches the subject itself
/// (`case int(n):`), as CPython's.
const SELF_MATCHING: &[&str] =
    &["bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"];

impl Interp<'_, '_> {
    /// `match subject:`: the body of the first case whose pattern matches and whose guard
    /// holds, with the pattern's names bound.
    pub(super) fn exec_match<'a>(
        &'a mut self,
        subject: &'a Expr,
        cases: &'a [MatchCase],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            match self.choose_case(subject, cases, env).await? {
                Some(i) => self.exec_block(&cases[i].body, env).await,
                None => Ok(Flow::Normal),
            }
        })
    }

    /// Which case matches the subject (its names then bound), if any.
    pub(super) async fn choose_case(&mut self, subject: &Expr, cases: &[MatchCase], env: &Env) -> R<Option<usize>> {
        let value = self.eval(subject, env).await?;
        for (i, case) in cases.iter().enumerate() {
            let mut bindings = Vec::new();
            let matched = self.matches(&case.pattern, &value, env, &mut bindings).await.map_err(|e| e.at(case.span))?;
            if !matched {
                continue;
            }
            for (name, v) in bindings {
                self.bind(env, &name, v);
            }
            if let Some(guard) = &case.guard {
                let holds = self.eval(guard, env).await?;
                if !self.truth(&holds).await.map_err(|e| e.at(guard.span))? {
                    continue;
                }
            }
            return Ok(Some(i));
        }
        Ok(None)
    }

    /// Whether `value` matches `pattern`, pushing the names it captures onto `bindings`.
    fn matches<'a>(
        &'a mut self,
        pattern: &'a Pattern,
        value: &'a Value,
        env: &'a Env,
        bindings: &'a mut Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<bool>> {
        Box::pin(async move {
            match pattern {
                Pattern::Wildcard => Ok(true),
                Pattern::Capture(name) => {
                    bindings.push((name.clone(), value.clone()));
                    Ok(true)
                }
                Pattern::As(inner, name) => {
                    if !self.matches(inner, value, env, bindings).await? {
                        return Ok(false);
                    }
                    bindings.push((name.clone(), value.clone()));
                    Ok(true)
                }
                Pattern::Or(alternatives) => {
                    for alternative in alternatives {
                        let mut tried = Vec::new();
                        if self.matches(alternative, value, env, &mut tried).await? {
                            bindings.extend(tried);
                            return Ok(true);
                        }
                    }
                    Ok(false)
                }
                // `None`, `True` and `False` compare by identity, everything else with `==`.
                Pattern::Value(expr) => {
                    let wanted = self.eval(expr, env).await?;
                    Ok(match (&expr.kind, &wanted) {
                        (ExprKind::None, _) => matches!(value, Value::None),
                        (ExprKind::Bool(b), _) => matches!(value, Value::Bool(v) if v == b),
                        _ => {
                            let equal = self.compare(CmpOp::Eq, value, &wanted).await?;
                            self.truth(&equal).await?
                        }
                    })
                }
                Pattern::Sequence { items, star } => {
                    // Lists and tuples (and their subclasses, a namedtuple) are sequences here;
                    // strings, bytes and arrays are not, as in CPython.
                    let base = super::classes::unwrap_base(value);
                    if !matches!(base, Value::List(_) | Value::Tuple(_)) {
                        return Ok(false);
                    }
                    let elements = self.iterate(&base)?;
                    let fits = match star {
                        None => elements.len() == items.len(),
                        Some(_) => elements.len() >= items.len(),
                    };
                    if !fits {
                        return Ok(false);
                    }
                    let (before, taken) = match star {
                        Some((at, _)) => (*at, elements.len() - items.len()),
                        None => (items.len(), 0),
                    };
                    for (i, item) in items.iter().enumerate() {
                        let element = if i < before { &elements[i] } else { &elements[i + taken] };
                        if !self.matches(item, element, env, bindings).await? {
                            return Ok(false);
                        }
                    }
                    if let Some((at, Some(name))) = star {
                        bindings.push((name.clone(), Value::list(elements[*at..*at + taken].to_vec())));
                    }
                    Ok(true)
                }
                Pattern::Mapping { entries, rest } => {
                    let Value::Dict(dict) = super::classes::unwrap_base(value) else { return Ok(false) };
                    let mut keys = Vec::with_capacity(entries.len());
                    for (key, item) in entries {
                        let key = self.eval(key, env).await?;
                        let found = dict.borrow().get(&key).cloned();
                        let Some(found) = found else { return Ok(false) };
                        if !self.matches(item, &found, env, bindings).await? {
                            return Ok(false);
                        }
                        keys.push(key);
                    }
                    if let Some(name) = rest {
                        let mut others = super::value::Dict::default();
                        let entries: Vec<(Value, Value)> = dict.borrow().entries.clone();
                        for (k, v) in entries {
                            if !keys.iter().any(|taken| super::value::py_eq(taken, &k)) {
                                others.insert(k, v)?;
                            }
                        }
                        bindings.push((name.clone(), Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(others)))));
                    }
                    Ok(true)
                }
                Pattern::Class { class, args, keywords } => {
                    let class = self.eval(class, env).await?;
                    let Value::Class(type_) = &class else {
                        return super::type_err("called match pattern must be a class");
                    };
                    let class_name = type_.name.clone();
                    let matches_itself = type_.builtin.is_some() && SELF_MATCHING.contains(&class_name.as_str());
                    let instance = self.call_builtin("isinstance", vec![value.clone(), class.clone()], vec![]).await?;
                    if !self.truth(&instance).await? {
                        return Ok(false);
                    }
                    let mut attributes: Vec<(String, &Pattern)> = Vec::new();
                    if !args.is_empty() {
                        if matches_itself {
                            if args.len() > 1 {
                                return super::type_err(format!(
                                    "{class_name}() accepts 1 positional sub-pattern ({} given)",
                                    args.len()
                                ));
                            }
                            if !self.matches(&args[0], value, env, bindings).await? {
                                return Ok(false);
                            }
                        } else {
                            let names = match self.get_attr(&class, "__match_args__").await {
                                Ok(Value::Tuple(names)) => names.to_vec(),
                                Ok(_) => {
                                    return super::type_err(format!("{class_name}.__match_args__ must be a tuple"))
                                }
                                Err(_) => Vec::new(),
                            };
                            if args.len() > names.len() {
                                return super::type_err(format!(
                                    "{class_name}() accepts {} positional sub-pattern{} ({} given)",
                                    names.len(),
                                    if names.len() == 1 { "" } else { "s" },
                                    args.len()
                                ));
                            }
                            for (name, arg) in names.iter().zip(args) {
                                let Value::Str(name) = name else {
                                    return super::type_err("__match_args__ elements must be strings");
                                };
                                attributes.push((name.to_string(), arg));
                            }
                        }
                    }
                    attributes.extend(keywords.iter().map(|(k, p)| (k.clone(), p)));
                    for (i, (name, _)) in attributes.iter().enumerate() {
                        if attributes[..i].iter().any(|(earlier, _)| earlier == name) {
                            return super::type_err(format!(
                                "{class_name}() got multiple sub-patterns for attribute '{name}'"
                            ));
                        }
                    }
                    for (name, sub) in attributes {
                        let Ok(attribute) = self.get_attr(value, &name).await else { return Ok(false) };
                        if !self.matches(sub, &attribute, env, bindings).await? {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                }
            }
        })
    }
}
