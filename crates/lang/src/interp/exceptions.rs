//! Exceptions: the error every failing operation returns (`RtError`), and what `raise`,
//! `try`/`except`/`else`/`finally` and `assert` do with it.
//!
//! An error raised by the interpreter or a library function is cheap: a built-in exception
//! type, a message, and the place it happened. It becomes a Python exception object only
//! when a script catches it with `except ... as e` (or re-raises it from a handler), which is
//! rare next to the errors that simply end a script. An exception a script raises carries its
//! object from the start.
//!
//! Stopping a runaway script (the step budget, the output limit) is an error no `except`
//! catches: a script must not be able to catch its way past its limits.

use super::objects::{Builtin, Instance};
use super::value::Value;
use super::{Env, Flow, Interp};
use crate::ast::{Expr, Span, Stmt};
use jaxlite::{JaxError, LocalFuture};
use std::rc::Rc;

/// An exception on its way up. Helpers raise it without a place; the innermost expression or
/// statement being evaluated attaches its own, which is the code that raised it. Boxed, so a
/// `Result` costs what its value costs on the stack every call level passes it through.
pub struct RtError(Box<ErrorData>);

/// What an `RtError` carries.
pub struct ErrorData {
    /// The built-in type of an error the interpreter raised (for a script's exception
    /// object, its nearest built-in base).
    pub kind: Builtin,
    pub message: String,
    pub span: Option<Span>,
    /// The exception object: what the script raised, or what a handler caught.
    pub exception: Option<Value>,
    /// The exception's arguments where they are not just the message (`KeyError`'s key,
    /// `StopIteration`'s value).
    pub args: Option<Vec<Value>>,
    /// A limit stopped the script: no `except` catches this.
    pub fatal: bool,
    /// The tracers whose origins the message has yet to say, one per `tracer_errors::ORIGIN`
    /// mark in it, written in by `Interp::write_origins` while their traces exist.
    pub tracers: Vec<Rc<jaxlite::trace::Tracer>>,
}

impl std::ops::Deref for RtError {
    type Target = ErrorData;
    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for RtError {
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.0
    }
}

impl From<ErrorData> for RtError {
    fn from(d: ErrorData) -> RtError {
        RtError(Box::new(d))
    }
}

impl std::fmt::Debug for RtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} at {:?}", self.kind.name(), self.message, self.span)
    }
}

impl RtError {
    /// A `TypeError`: what the interpreter and the `jax` library raise for arguments of the
    /// wrong kind, which is most of their errors (as in JAX). Other types have their own
    /// constructors.
    pub fn new(message: impl Into<String>) -> RtError {
        RtError::of(Builtin::TypeError, message)
    }

    pub fn of(kind: Builtin, message: impl Into<String>) -> RtError {
        RtError::from(ErrorData {
            kind,
            message: message.into(),
            span: None,
            exception: None,
            args: None,
            fatal: false,
            tracers: Vec::new(),
        })
    }

    /// An error that ends the script whatever handlers it passes (a limit was reached).
    pub fn fatal(message: impl Into<String>) -> RtError {
        let mut e = RtError::of(Builtin::RuntimeError, message);
        e.fatal = true;
        e
    }

    /// `KeyError(key)`: its message is the key's `repr`.
    pub fn key(key: &Value) -> RtError {
        RtError::key_text(&super::value::repr(key), key.clone())
    }

    /// A `KeyError` whose message is `repr_text`, the key's repr (a script's `__repr__`).
    pub fn key_text(repr_text: &str, key: Value) -> RtError {
        let mut e = RtError::of(Builtin::KeyError, repr_text);
        e.args = Some(vec![key]);
        e
    }

    /// Attaches the place of the code that raised this, unless it has one: the innermost
    /// place in the script wins (library code never names the place, so an error in it points
    /// at the script's call).
    pub(super) fn at(mut self, span: Span) -> RtError {
        if span.file == 0 {
            self.span.get_or_insert(span);
        }
        self
    }

    /// The line a script's output ends with when this error ends it: `ValueError: message`,
    /// as CPython's traceback ends (a limit's message alone).
    pub fn display(&self) -> String {
        if self.fatal {
            return self.message.clone();
        }
        // An origin never written (its trace had ended) is left out.
        let message: String = self.message.chars().filter(|&c| c != super::tracer_errors::ORIGIN).collect();
        let name = match &self.exception {
            Some(Value::Instance(i)) => i.class.name.clone(),
            _ => self.kind.name().to_string(),
        };
        if message.is_empty() {
            name
        } else {
            format!("{name}: {message}")
        }
    }
}

impl From<JaxError> for RtError {
    /// jaxlite's errors carry only their message: what it cannot do yet (the playground's
    /// limits) is a `NotImplementedError`, an array past the emulator's memory a
    /// `MemoryError`, an index or axis out of range an `IndexError`, a program the machine
    /// could not finish a `JaxRuntimeError`, anything else (shapes,
    /// dtypes) a `TypeError`, as JAX's shape errors are.
    fn from(e: JaxError) -> RtError {
        use jaxlite::callback;
        let kind = if e.0.contains("not supported by the playground")
            || e.0.contains("not supported by the compiler")
            || e.0 == callback::PURE_VMAP_NONE
        {
            Builtin::NotImplementedError
        } else if e.0.contains("failed on the emulated TPU")
            || e.0.contains("failed on the GPU")
            || e.0.contains("RESOURCE_EXHAUSTED")
        {
            // A run the machine could not finish (a loop past the step budget, an address
            // computed out of range) is what JAX raises when its device fails a program, as
            // is a program larger than the chip's HBM (XLA's RESOURCE_EXHAUSTED).
            Builtin::JaxRuntimeError
        } else if e.0.contains("too large for the playground") || e.0.contains("of HBM") {
            Builtin::MemoryError
        } else if e.0.contains("is out of bounds for") {
            // NumPy's AxisError and JAX's index errors are IndexErrors.
            Builtin::IndexError
        } else if e.0.contains("does not match previous terms")
            || e.0.contains("for collapsing index")
            || e.0 == jaxlite::transform::WHILE_REVERSE
            || e.0.starts_with("Incompatible shapes for broadcasting")
            || e.0.starts_with("Incompatible types for broadcasting")
            || [callback::PURE_JVP, callback::IO_JVP, callback::IO_ORDERED_VMAP].contains(&e.0.as_str())
        {
            // einsum's label sizes, a ValueError in JAX and NumPy alike; so is reverse mode
            // through a while loop.
            Builtin::ValueError
        } else {
            Builtin::TypeError
        };
        RtError::of(kind, e.0)
    }
}

pub type R<T> = Result<T, RtError>;

/// A `TypeError` (see `RtError::new`).
pub fn err<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::new(message))
}

pub fn type_err<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::TypeError, message))
}

pub fn value_err<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::ValueError, message))
}

pub fn index_err<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::IndexError, message))
}

pub fn attr_err<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::AttributeError, message))
}

pub fn zero_div<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::ZeroDivisionError, message))
}

/// An int result past 64 bits, where CPython's ints would simply grow.
pub fn int_overflow() -> RtError {
    RtError::of(Builtin::OverflowError, "integer overflow (the playground's ints are 64-bit)")
}

/// An error of any built-in exception type.
pub fn raise<T>(kind: Builtin, message: impl Into<String>) -> R<T> {
    Err(RtError::of(kind, message))
}

/// What the playground does not do (yet): `NotImplementedError`.
pub fn unsupported<T>(message: impl Into<String>) -> R<T> {
    Err(RtError::of(Builtin::NotImplementedError, message))
}

/// An exception on its way through a `try`: an error, or a `return`/`break`/`continue`
/// leaving through its `finally`.
enum Exit {
    Flow(Flow),
    Error(RtError),
}

impl Interp<'_, '_> {
    /// `try`: the body; on an error the first handler whose type matches (its name bound to
    /// the exception, unbound again after, as in Python); `else` when the body raised
    /// nothing; `finally` whatever happened, whose own `return`, `break` or error wins.
    pub(super) fn exec_try<'a>(
        &'a mut self,
        body: &'a [Stmt],
        handlers: &'a [crate::ast::ExceptHandler],
        orelse: &'a [Stmt],
        finalbody: &'a [Stmt],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let exit = match self.exec_block(body, env).await {
                Ok(Flow::Normal) => match self.exec_block(orelse, env).await {
                    Ok(flow) => Exit::Flow(flow),
                    Err(e) => Exit::Error(e),
                },
                Ok(flow) => Exit::Flow(flow),
                Err(e) => match self.find_handler(e, handlers, env).await? {
                    Ok((index, error)) => match self.run_handler(index, error, handlers, env).await {
                        Ok(flow) => Exit::Flow(flow),
                        Err(e) => Exit::Error(e),
                    },
                    Err(e) => Exit::Error(e),
                },
            };
            if finalbody.is_empty() {
                return match exit {
                    Exit::Flow(flow) => Ok(flow),
                    Exit::Error(e) => Err(e),
                };
            }
            // A limit stops the script at once: no `finally` runs on its way out.
            if let Exit::Error(e) = &exit {
                if e.fatal {
                    return match exit {
                        Exit::Error(e) => Err(e),
                        Exit::Flow(_) => unreachable!("matched an error"),
                    };
                }
            }
            match self.exec_block(finalbody, env).await? {
                Flow::Normal => match exit {
                    Exit::Flow(flow) => Ok(flow),
                    Exit::Error(e) => Err(e),
                },
                flow => Ok(flow),
            }
        })
    }

    /// Runs handler `index` of a `try` for the error it caught (its name already bound).
    fn run_handler<'a>(
        &'a mut self,
        index: usize,
        error: RtError,
        handlers: &'a [crate::ast::ExceptHandler],
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let h = &handlers[index];
            self.handling.push(error);
            let result = self.exec_block(&h.body, env).await;
            let handled = self.handling.pop();
            if let Some(name) = &h.name {
                env.vars.borrow_mut().remove(name);
            }
            // An error raised in the handler has the one it handled as its context.
            result.inspect_err(|e| {
                if let (Some(Value::Instance(new)), Some(old)) = (&e.exception, handled) {
                    let same = matches!(&old.exception, Some(Value::Instance(o)) if Rc::ptr_eq(o, new));
                    if !same && new.get("__context__").is_none() {
                        new.set("__context__", old.exception.clone().unwrap_or(Value::None));
                    }
                }
            })
        })
    }

    /// Whether `error` is an instance of `kind` (a class or a tuple of classes), as `except`
    /// tests it.
    pub(super) fn exception_matches(&mut self, error: &mut RtError, kind: &Value) -> R<bool> {
        match kind {
            Value::Tuple(kinds) => {
                for k in kinds.iter() {
                    if self.exception_matches(error, k)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Class(c) if c.derives(Builtin::BaseException) => {
                let class = match &error.exception {
                    Some(Value::Instance(i)) => i.class.clone(),
                    _ => self.types.get(error.kind),
                };
                Ok(class.is_subclass(c))
            }
            _ => type_err("catching classes that do not inherit from BaseException is not allowed"),
        }
    }

    /// The exception object for `error`, made now for an error the interpreter raised.
    pub(super) fn exception_object(&mut self, error: &mut RtError) -> Value {
        self.write_origins(error);
        if let Some(e) = &error.exception {
            return e.clone();
        }
        let args = error.args.clone().unwrap_or_else(|| {
            if error.message.is_empty() {
                vec![]
            } else {
                vec![Value::str(&error.message)]
            }
        });
        let instance = Rc::new(Instance::new(self.types.get(error.kind), Value::tuple(args)));
        self.made.instance(&instance);
        let value = Value::Instance(instance);
        error.exception = Some(value.clone());
        value
    }

    /// `raise exc [from cause]`, or a bare `raise` of the exception being handled.
    pub(super) fn exec_raise<'a>(
        &'a mut self,
        exc: Option<&'a Expr>,
        cause: Option<&'a Expr>,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let Some(exc) = exc else {
                return match self.handling.last() {
                    Some(e) => Err(RtError::from(ErrorData {
                        kind: e.kind,
                        message: e.message.clone(),
                        span: e.span,
                        exception: e.exception.clone(),
                        args: e.args.clone(),
                        fatal: false,
                        tracers: Vec::new(),
                    })),
                    None => Err(RtError::of(Builtin::RuntimeError, "No active exception to reraise")),
                };
            };
            let value = self.eval(exc, env).await?;
            let instance = self.exception_from(value).await.map_err(|e| e.at(exc.span))?;
            if let Some(cause) = cause {
                let c = self.eval(cause, env).await?;
                let c = match c {
                    Value::None => Value::None,
                    other => Value::Instance(self.exception_from(other).await.map_err(|e| e.at(cause.span))?),
                };
                instance.set("__cause__", c);
            }
            Err(self.raise(instance).await?)
        })
    }

    /// The exception a `raise` of `value` raises: an exception object as it is, a class
    /// instantiated with no arguments.
    pub(super) fn exception_from<'a>(&'a mut self, value: Value) -> LocalFuture<'a, R<Rc<Instance>>> {
        Box::pin(async move {
            let value = match value {
                Value::Class(c) if c.derives(Builtin::BaseException) => {
                    self.call(Value::Class(c), vec![], vec![]).await?
                }
                other => other,
            };
            match value {
                Value::Instance(i) if i.class.derives(Builtin::BaseException) => Ok(i),
                _ => type_err("exceptions must derive from BaseException"),
            }
        })
    }

    /// The error that carries `instance` up: its message is its `str`.
    pub(super) fn raise<'a>(&'a mut self, instance: Rc<Instance>) -> LocalFuture<'a, R<RtError>> {
        Box::pin(async move {
            let value = Value::Instance(instance.clone());
            let message = self.py_str(&value).await?;
            let kind = instance.class.lineage().find_map(|c| c.builtin).unwrap_or(Builtin::Exception);
            Ok(RtError::from(ErrorData {
                kind,
                message,
                span: None,
                exception: Some(value),
                args: None,
                fatal: false,
                tracers: Vec::new(),
            }))
        })
    }

    /// `assert test, msg`.
    pub(super) fn exec_assert<'a>(
        &'a mut self,
        test: &'a Expr,
        msg: Option<&'a Expr>,
        env: &'a Env,
    ) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let t = self.eval(test, env).await?;
            if self.truth(&t).await.map_err(|e| e.at(test.span))? {
                return Ok(Flow::Normal);
            }
            let args = match msg {
                Some(m) => vec![self.eval(m, env).await?],
                None => vec![],
            };
            let class = Value::Class(self.types.get(Builtin::AssertionError));
            let e = self.call(class, args, vec![]).await?;
            let Value::Instance(e) = e else { unreachable!("AssertionError makes an instance") };
            Err(self.raise(e).await?)
        })
    }
}
