//! The syntax tree. Every statement and expression carries the place where it starts, so the
//! interpreter can point at the code that raised an error. `Display` prints a compact
//! S-expression form used by the golden tests.

use std::fmt::{self, Write};
use std::rc::Rc;

/// A 1-based line and column (in chars), and which source they are in: 0 for the script,
/// another number for a library module written in Python (whose places are never reported
/// to the script: its errors point at the script's call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub file: u16,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// `a = b = value`: every target receives the value.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    If {
        cond: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `for target in iter: body [else: orelse]` (`orelse` runs unless the loop broke).
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `with context [as target]:` (one context manager; `with a, b:` nests two).
    With {
        context: Expr,
        target: Option<Expr>,
        body: Vec<Stmt>,
    },
    Def(Rc<FuncDef>),
    Class(Rc<ClassDef>),
    Return(Option<Expr>),
    /// `try: body except ...: ... else: orelse finally: finalbody`.
    Try {
        body: Vec<Stmt>,
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
    /// `raise [exc [from cause]]`.
    Raise {
        exc: Option<Expr>,
        cause: Option<Expr>,
    },
    /// `assert test[, msg]`.
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `del a, b[i], c.d`.
    Del(Vec<Expr>),
    /// `global a, b` and `nonlocal a, b`: declarations, read by the parser into the enclosing
    /// `FuncDef` (they do nothing when run).
    Global(Vec<String>),
    Nonlocal(Vec<String>),
    /// `target: annotation [= value]`. Annotations in a class body are recorded in its
    /// `__annotations__` (dataclasses and NamedTuples read them); elsewhere they are not
    /// evaluated.
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    Break,
    Continue,
    Pass,
    /// `import a.b as c, d`
    Import {
        modules: Vec<(String, Option<String>)>,
    },
    /// `from a import b as c, d`
    FromImport {
        module: String,
        names: Vec<(String, Option<String>)>,
    },
    /// `match subject:` and its cases, tried in order; the first whose pattern matches (and
    /// whose guard holds) runs.
    Match {
        subject: Expr,
        cases: Vec<MatchCase>,
    },
}

/// `case pattern [if guard]: body`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCase {
    /// Where the pattern starts.
    pub span: Span,
    pub pattern: Pattern,
    pub guard: Option<Expr>,
    pub body: Vec<Stmt>,
}

/// A `case` pattern (PEP 634).
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// `_`: matches anything, binds nothing.
    Wildcard,
    /// `name`: matches anything and binds it.
    Capture(String),
    /// A literal (`1`, `-2.5`, `"s"`, `None`, `True`) or a dotted name (`Color.RED`): equal to
    /// the subject (`None`, `True` and `False` by identity).
    Value(Expr),
    /// `[a, *rest, b]`, `(a, b)` or `a, b`: a list or tuple (not a string) of matching items;
    /// `star` is where the one starred item is and the name it binds (`None` for `*_`).
    Sequence { items: Vec<Pattern>, star: Option<(usize, Option<String>)> },
    /// `{key: pattern, **rest}`: a mapping holding each key with a matching value.
    Mapping { entries: Vec<(Expr, Pattern)>, rest: Option<String> },
    /// `Class(p, key=q)`: an instance whose attributes (positional ones named by
    /// `__match_args__`) match.
    Class { class: Expr, args: Vec<Pattern>, keywords: Vec<(String, Pattern)> },
    /// `p | q`: the first alternative that matches.
    Or(Vec<Pattern>),
    /// `p as name`.
    As(Box<Pattern>, String),
}

impl Pattern {
    /// The names a successful match binds, in order.
    pub fn bound_names(&self, out: &mut Vec<String>) {
        let add = |n: &str, out: &mut Vec<String>| {
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        };
        match self {
            Pattern::Wildcard | Pattern::Value(_) => {}
            Pattern::Capture(n) => add(n, out),
            Pattern::Sequence { items, star } => {
                for (i, item) in items.iter().enumerate() {
                    if let Some((at, Some(n))) = star {
                        if *at == i {
                            add(n, out);
                        }
                    }
                    item.bound_names(out);
                }
                if let Some((at, Some(n))) = star {
                    if *at == items.len() {
                        add(n, out);
                    }
                }
            }
            Pattern::Mapping { entries, rest } => {
                entries.iter().for_each(|(_, p)| p.bound_names(out));
                if let Some(n) = rest {
                    add(n, out);
                }
            }
            Pattern::Class { args, keywords, .. } => {
                args.iter().for_each(|p| p.bound_names(out));
                keywords.iter().for_each(|(_, p)| p.bound_names(out));
            }
            Pattern::Or(alternatives) => alternatives.iter().for_each(|p| p.bound_names(out)),
            Pattern::As(p, n) => {
                p.bound_names(out);
                add(n, out);
            }
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: Vec<String>| items.join(" ");
        match self {
            Pattern::Wildcard => write!(f, "_"),
            Pattern::Capture(n) => write!(f, "{n}"),
            Pattern::Value(e) => write!(f, "(== {e})"),
            Pattern::Sequence { items, star } => {
                let mut shown: Vec<String> = items.iter().map(|p| p.to_string()).collect();
                if let Some((at, name)) = star {
                    shown.insert(*at, format!("*{}", name.as_deref().unwrap_or("_")));
                }
                write!(f, "[{}]", list(shown))
            }
            Pattern::Mapping { entries, rest } => {
                let mut shown: Vec<String> = entries.iter().map(|(k, p)| format!("{k}: {p}")).collect();
                if let Some(r) = rest {
                    shown.push(format!("**{r}"));
                }
                write!(f, "{{{}}}", list(shown))
            }
            Pattern::Class { class, args, keywords } => {
                let mut shown: Vec<String> = args.iter().map(|p| p.to_string()).collect();
                shown.extend(keywords.iter().map(|(k, p)| format!("{k}={p}")));
                write!(f, "({class} {})", list(shown))
            }
            Pattern::Or(alternatives) => {
                let shown: Vec<String> = alternatives.iter().map(|p| p.to_string()).collect();
                write!(f, "(| {})", list(shown))
            }
            Pattern::As(p, n) => write!(f, "({p} as {n})"),
        }
    }
}

/// A `def` or a `lambda` (whose body is one `return`).
#[derive(Debug, PartialEq)]
pub struct FuncDef {
    pub name: String,
    /// Where it is defined, as `__qualname__` and CPython's messages name it (`C.method`,
    /// `outer.<locals>.inner`).
    pub qualname: String,
    pub params: Vec<Param>,
    /// `*args`
    pub vararg: Option<String>,
    /// Parameters after `*` or `*args`: passed by keyword only.
    pub keyword_only: Vec<Param>,
    /// `**kwargs`
    pub kwarg: Option<String>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub span: Span,
    /// Whether the body yields: calling the function makes a generator.
    pub is_generator: bool,
    /// How many of `params` come before a `/`: positional-only.
    pub posonly: usize,
    /// Names the body declares `global` or `nonlocal`: assigned where they are declared, not
    /// locally.
    pub globals: Vec<String>,
    pub nonlocals: Vec<String>,
}

/// `class name(bases): body`, with its decorators.
#[derive(Debug, PartialEq)]
pub struct ClassDef {
    pub name: String,
    /// Base classes, and keywords such as `metaclass=` (`f(...)`'s argument forms).
    pub bases: Vec<Arg>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub span: Span,
}

/// `except [type [as name]]: body`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    pub span: Span,
    pub kind: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    Int(i64),
    Float(f64),
    /// An imaginary literal: `2j` is `Imag(2.0)`.
    Imag(f64),
    Str(String),
    FString(Vec<FPart>),
    Bool(bool),
    None,
    Ellipsis,
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    /// `*xs` inside a tuple or list display, or an assignment target that takes the rest.
    Starred(Box<Expr>),
    /// `{k: v, **other}`: a `None` key unpacks the value's items.
    Dict(Vec<(Option<Expr>, Expr)>),
    Set(Vec<Expr>),
    SetComp {
        elt: Box<Expr>,
        clauses: Vec<CompFor>,
    },
    /// `(elt for ... in first ...)`: a generator function (`def`, the clauses as nested `for`
    /// and `if` statements around `yield elt`) whose first iterable is evaluated where the
    /// expression stands, as Python does, and passed in as its one parameter.
    GeneratorExp {
        def: Rc<FuncDef>,
        first: Box<Expr>,
    },
    /// `yield [value]`, as a statement or the value of an assignment.
    Yield(Option<Box<Expr>>),
    /// `yield from iterable`, likewise.
    YieldFrom(Box<Expr>),
    /// `name := value`.
    NamedExpr(String, Box<Expr>),
    ListComp {
        elt: Box<Expr>,
        clauses: Vec<CompFor>,
    },
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        clauses: Vec<CompFor>,
    },
    Attr(Box<Expr>, String),
    Subscript(Box<Expr>, Box<Expr>),
    /// `a:b:c` inside a subscript.
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    Call {
        func: Box<Expr>,
        args: Vec<Arg>,
    },
    Unary(UnaryOp, Box<Expr>),
    /// `a op b`, and where it starts: its first token, an opening parenthesis of its left
    /// operand included (CPython's position for it, which JAX's `source_info` reports).
    Binary(BinOp, Box<Expr>, Box<Expr>, Span),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `a < b <= c`: the first operand, then each comparison.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    IfExp {
        cond: Box<Expr>,
        then: Box<Expr>,
        orelse: Box<Expr>,
    },
    Lambda(Rc<FuncDef>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FPart {
    Text(String),
    /// `conversion`: `r`, `s` or `a` (`{x!r}`), applied before the spec.
    Field {
        expr: Expr,
        spec: String,
        conversion: Option<char>,
    },
}

/// `for target in iter if cond...` inside a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct CompFor {
    pub target: Expr,
    pub iter: Expr,
    pub conds: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Positional(Expr),
    Star(Expr),
    /// `**mapping`
    DoubleStar(Expr),
    Keyword(String, Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    BitAnd,
    BitOr,
    BitXor,
    LShift,
    RShift,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Is,
    IsNot,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not",
        }
    }
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
        }
    }
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
}

fn opt(e: &Option<Box<Expr>>) -> String {
    e.as_ref().map_or("_".to_string(), |e| e.to_string())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Int(i) => write!(f, "{i}"),
            ExprKind::Float(x) => write!(f, "{x:?}"),
            ExprKind::Imag(x) => write!(f, "{x:?}j"),
            ExprKind::Str(s) => write!(f, "{s:?}"),
            ExprKind::FString(parts) => {
                f.write_str("(f")?;
                for p in parts {
                    match p {
                        FPart::Text(t) => write!(f, " {t:?}")?,
                        FPart::Field { expr, spec, conversion } => {
                            let conversion = conversion.map_or(String::new(), |c| format!("!{c}"));
                            let spec = if spec.is_empty() { String::new() } else { format!(":{spec}") };
                            write!(f, " {{{expr}{conversion}{spec}}}")?
                        }
                    }
                }
                f.write_str(")")
            }
            ExprKind::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ExprKind::None => f.write_str("None"),
            ExprKind::Ellipsis => f.write_str("..."),
            ExprKind::List(items) => write!(f, "[{}]", join(items)),
            ExprKind::Tuple(items) => write!(f, "(tuple {})", join(items)),
            ExprKind::Starred(e) => write!(f, "*{e}"),
            ExprKind::Dict(items) => {
                let pairs: Vec<String> = items
                    .iter()
                    .map(|(k, v)| match k {
                        Some(k) => format!("{k}: {v}"),
                        None => format!("**{v}"),
                    })
                    .collect();
                write!(f, "{{{}}}", pairs.join(", "))
            }
            ExprKind::Set(items) => write!(f, "(set {})", join(items)),
            ExprKind::SetComp { elt, clauses } => write!(f, "(setcomp {elt}{})", clauses_text(clauses)),
            ExprKind::GeneratorExp { def, first } => {
                let mut body = String::new();
                for s in &def.body {
                    s.write(&mut body, 1);
                }
                write!(f, "(genexpr {first}\n{body})")
            }
            ExprKind::Yield(Some(e)) => write!(f, "(yield {e})"),
            ExprKind::Yield(None) => f.write_str("(yield)"),
            ExprKind::YieldFrom(e) => write!(f, "(yield from {e})"),
            ExprKind::NamedExpr(name, e) => write!(f, "(:= {name} {e})"),
            ExprKind::ListComp { elt, clauses } => {
                write!(f, "(listcomp {elt}{})", clauses_text(clauses))
            }
            ExprKind::DictComp { key, value, clauses } => {
                write!(f, "(dictcomp {key}: {value}{})", clauses_text(clauses))
            }
            ExprKind::Attr(obj, name) => write!(f, "{obj}.{name}"),
            ExprKind::Subscript(obj, index) => write!(f, "(index {obj} {index})"),
            ExprKind::Slice(a, b, c) => write!(f, "(slice {} {} {})", opt(a), opt(b), opt(c)),
            ExprKind::Call { func, args } => {
                write!(f, "(call {func}")?;
                for a in args {
                    write!(f, " {}", arg_text(a))?;
                }
                f.write_str(")")
            }
            ExprKind::Unary(op, e) => write!(f, "({} {e})", op.symbol()),
            ExprKind::Binary(op, a, b, _) => write!(f, "({} {a} {b})", op.symbol()),
            ExprKind::And(a, b) => write!(f, "(and {a} {b})"),
            ExprKind::Or(a, b) => write!(f, "(or {a} {b})"),
            ExprKind::Compare(first, rest) => {
                write!(f, "(cmp {first}")?;
                for (op, e) in rest {
                    write!(f, " {} {e}", op.symbol())?;
                }
                f.write_str(")")
            }
            ExprKind::IfExp { cond, then, orelse } => write!(f, "(if {cond} {then} {orelse})"),
            ExprKind::Lambda(def) => {
                let body = match def.body.first().map(|s| &s.kind) {
                    Some(StmtKind::Return(Some(e))) => e.to_string(),
                    _ => String::new(),
                };
                write!(f, "(lambda ({}) {body})", params_text(def))
            }
        }
    }
}

fn arg_text(a: &Arg) -> String {
    match a {
        Arg::Positional(e) => e.to_string(),
        Arg::Star(e) => format!("*{e}"),
        Arg::DoubleStar(e) => format!("**{e}"),
        Arg::Keyword(k, e) => format!("{k}={e}"),
    }
}

fn clauses_text(clauses: &[CompFor]) -> String {
    let mut s = String::new();
    for c in clauses {
        let _ = write!(s, " for {} in {}", c.target, c.iter);
        for cond in &c.conds {
            let _ = write!(s, " if {cond}");
        }
    }
    s
}

fn params_text(def: &FuncDef) -> String {
    let mut params: Vec<String> = def
        .params
        .iter()
        .map(|p| match &p.default {
            Some(d) => format!("{}={d}", p.name),
            None => p.name.clone(),
        })
        .collect();
    match &def.vararg {
        Some(v) => params.push(format!("*{v}")),
        None if !def.keyword_only.is_empty() => params.push("*".into()),
        None => {}
    }
    params.extend(def.keyword_only.iter().map(|p| match &p.default {
        Some(d) => format!("{}={d}", p.name),
        None => p.name.clone(),
    }));
    if let Some(k) = &def.kwarg {
        params.push(format!("**{k}"));
    }
    params.join(" ")
}

impl Stmt {
    fn write(&self, out: &mut String, indent: usize) {
        let pad = "  ".repeat(indent);
        let block = |out: &mut String, body: &[Stmt]| {
            for s in body {
                s.write(out, indent + 1);
            }
        };
        let _ = match &self.kind {
            StmtKind::Expr(e) => writeln!(out, "{pad}{e}"),
            StmtKind::Assign { targets, value } => {
                writeln!(out, "{pad}(= {} {value})", join(targets))
            }
            StmtKind::AugAssign { target, op, value } => {
                writeln!(out, "{pad}({}= {target} {value})", op.symbol())
            }
            StmtKind::If { cond, body, orelse } => {
                let _ = writeln!(out, "{pad}(if {cond}");
                block(out, body);
                if !orelse.is_empty() {
                    let _ = writeln!(out, "{pad} else");
                    block(out, orelse);
                }
                writeln!(out, "{pad})")
            }
            StmtKind::For { target, iter, body, orelse } => {
                let _ = writeln!(out, "{pad}(for {target} in {iter}");
                block(out, body);
                if !orelse.is_empty() {
                    let _ = writeln!(out, "{pad} else");
                    block(out, orelse);
                }
                writeln!(out, "{pad})")
            }
            StmtKind::While { cond, body, orelse } => {
                let _ = writeln!(out, "{pad}(while {cond}");
                block(out, body);
                if !orelse.is_empty() {
                    let _ = writeln!(out, "{pad} else");
                    block(out, orelse);
                }
                writeln!(out, "{pad})")
            }
            StmtKind::With { context, target, body } => {
                let _ = match target {
                    Some(t) => writeln!(out, "{pad}(with {context} as {t}"),
                    None => writeln!(out, "{pad}(with {context}"),
                };
                block(out, body);
                writeln!(out, "{pad})")
            }
            StmtKind::Def(def) => {
                for d in &def.decorators {
                    let _ = writeln!(out, "{pad}@{d}");
                }
                let _ = writeln!(out, "{pad}(def {} ({})", def.name, params_text(def));
                block(out, &def.body);
                writeln!(out, "{pad})")
            }
            StmtKind::Class(class) => {
                for d in &class.decorators {
                    let _ = writeln!(out, "{pad}@{d}");
                }
                let bases: Vec<String> = class.bases.iter().map(arg_text).collect();
                let _ = writeln!(out, "{pad}(class {} ({})", class.name, bases.join(" "));
                block(out, &class.body);
                writeln!(out, "{pad})")
            }
            StmtKind::Try { body, handlers, orelse, finalbody } => {
                let _ = writeln!(out, "{pad}(try");
                block(out, body);
                for h in handlers {
                    let _ = match (&h.kind, &h.name) {
                        (Some(k), Some(n)) => writeln!(out, "{pad} except {k} as {n}"),
                        (Some(k), None) => writeln!(out, "{pad} except {k}"),
                        _ => writeln!(out, "{pad} except"),
                    };
                    block(out, &h.body);
                }
                if !orelse.is_empty() {
                    let _ = writeln!(out, "{pad} else");
                    block(out, orelse);
                }
                if !finalbody.is_empty() {
                    let _ = writeln!(out, "{pad} finally");
                    block(out, finalbody);
                }
                writeln!(out, "{pad})")
            }
            StmtKind::Raise { exc, cause } => match (exc, cause) {
                (Some(e), Some(c)) => writeln!(out, "{pad}(raise {e} from {c})"),
                (Some(e), None) => writeln!(out, "{pad}(raise {e})"),
                _ => writeln!(out, "{pad}(raise)"),
            },
            StmtKind::Assert { test, msg: Some(m) } => writeln!(out, "{pad}(assert {test} {m})"),
            StmtKind::Assert { test, msg: None } => writeln!(out, "{pad}(assert {test})"),
            StmtKind::Del(targets) => writeln!(out, "{pad}(del {})", join(targets)),
            StmtKind::Global(names) => writeln!(out, "{pad}(global {})", names.join(" ")),
            StmtKind::Nonlocal(names) => writeln!(out, "{pad}(nonlocal {})", names.join(" ")),
            StmtKind::AnnAssign { target, annotation, value: Some(v) } => {
                writeln!(out, "{pad}(: {target} {annotation} = {v})")
            }
            StmtKind::AnnAssign { target, annotation, value: None } => writeln!(out, "{pad}(: {target} {annotation})"),
            StmtKind::Return(Some(e)) => writeln!(out, "{pad}(return {e})"),
            StmtKind::Return(None) => writeln!(out, "{pad}(return)"),
            StmtKind::Break => writeln!(out, "{pad}break"),
            StmtKind::Continue => writeln!(out, "{pad}continue"),
            StmtKind::Pass => writeln!(out, "{pad}pass"),
            StmtKind::Import { modules } => {
                let modules: Vec<String> =
                    modules.iter().map(|(m, a)| a.as_ref().map_or(m.clone(), |a| format!("{m} as {a}"))).collect();
                writeln!(out, "{pad}(import {})", modules.join(", "))
            }
            StmtKind::FromImport { module, names } => {
                let names: Vec<String> =
                    names.iter().map(|(n, a)| a.as_ref().map_or(n.clone(), |a| format!("{n} as {a}"))).collect();
                writeln!(out, "{pad}(from {module} import {})", names.join(", "))
            }
            StmtKind::Match { subject, cases } => {
                let _ = writeln!(out, "{pad}(match {subject}");
                for case in cases {
                    let _ = match &case.guard {
                        Some(g) => writeln!(out, "{pad} case {} if {g}", case.pattern),
                        None => writeln!(out, "{pad} case {}", case.pattern),
                    };
                    block(out, &case.body);
                }
                writeln!(out, "{pad})")
            }
        };
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for s in &self.body {
            s.write(&mut out, 0);
        }
        f.write_str(&out)
    }
}

/// The names a function body binds (assignment targets, loop variables, defs, classes,
/// imports, `except ... as` names, `del` targets): its locals, by Python's rule, before the
/// ones it declares `global` or `nonlocal` are taken out. Nested functions, classes and
/// comprehensions have their own scopes.
pub fn bound_names(body: &[Stmt], out: &mut Vec<String>) {
    fn target(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Name(n) if !out.contains(n) => out.push(n.clone()),
            ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().for_each(|i| target(i, out)),
            ExprKind::Starred(e) => target(e, out),
            _ => {}
        }
    }
    let add = |n: &str, out: &mut Vec<String>| {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    };
    for s in body {
        match &s.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
            StmtKind::AugAssign { target: t, .. } => target(t, out),
            StmtKind::AnnAssign { target: t, value: Some(_), .. } => target(t, out),
            StmtKind::For { target: t, body, orelse, .. } => {
                target(t, out);
                bound_names(body, out);
                bound_names(orelse, out);
            }
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                bound_names(body, out);
                bound_names(orelse, out);
            }
            StmtKind::Try { body, handlers, orelse, finalbody } => {
                bound_names(body, out);
                for h in handlers {
                    if let Some(n) = &h.name {
                        add(n, out);
                    }
                    bound_names(&h.body, out);
                }
                bound_names(orelse, out);
                bound_names(finalbody, out);
            }
            StmtKind::Del(targets) => targets.iter().for_each(|t| target(t, out)),
            StmtKind::Class(class) => add(&class.name, out),
            StmtKind::With { target: t, body, .. } => {
                if let Some(t) = t {
                    target(t, out);
                }
                bound_names(body, out);
            }
            StmtKind::Def(def) => add(&def.name, out),
            StmtKind::Import { modules } => {
                for (module, alias) in modules {
                    add(alias.as_deref().unwrap_or(module.split('.').next().unwrap_or(module)), out)
                }
            }
            StmtKind::FromImport { names, .. } => {
                for (n, a) in names {
                    add(a.as_deref().unwrap_or(n), out);
                }
            }
            StmtKind::Match { cases, .. } => {
                for case in cases {
                    case.pattern.bound_names(out);
                    bound_names(&case.body, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether a function body yields (so calling it makes a generator). Nested functions,
/// classes and generator expressions are their own.
pub fn yields(body: &[Stmt]) -> bool {
    body.iter().any(stmt_yields)
}

/// Whether a statement yields somewhere inside it (not inside a nested function or class).
pub fn stmt_yields(s: &Stmt) -> bool {
    let is_yield = |e: &Expr| matches!(e.kind, ExprKind::Yield(_) | ExprKind::YieldFrom(_));
    match &s.kind {
        StmtKind::Expr(e) => is_yield(e),
        StmtKind::Assign { value, .. } => is_yield(value),
        StmtKind::AnnAssign { value: Some(v), .. } => is_yield(v),
        StmtKind::If { body, orelse, .. }
        | StmtKind::While { body, orelse, .. }
        | StmtKind::For { body, orelse, .. } => yields(body) || yields(orelse),
        StmtKind::With { body, .. } => yields(body),
        StmtKind::Try { body, handlers, orelse, finalbody } => {
            yields(body) || handlers.iter().any(|h| yields(&h.body)) || yields(orelse) || yields(finalbody)
        }
        StmtKind::Match { cases, .. } => cases.iter().any(|c| yields(&c.body)),
        _ => false,
    }
}

/// The names `global` and `nonlocal` statements in a function body declare (not those of
/// nested functions), in that order.
pub fn declared_names(body: &[Stmt]) -> (Vec<String>, Vec<String>) {
    fn walk(body: &[Stmt], globals: &mut Vec<String>, nonlocals: &mut Vec<String>) {
        for s in body {
            match &s.kind {
                StmtKind::Global(names) => globals.extend(names.iter().cloned()),
                StmtKind::Nonlocal(names) => nonlocals.extend(names.iter().cloned()),
                StmtKind::If { body, orelse, .. }
                | StmtKind::While { body, orelse, .. }
                | StmtKind::For { body, orelse, .. } => {
                    walk(body, globals, nonlocals);
                    walk(orelse, globals, nonlocals);
                }
                StmtKind::With { body, .. } => walk(body, globals, nonlocals),
                StmtKind::Try { body, handlers, orelse, finalbody } => {
                    walk(body, globals, nonlocals);
                    for h in handlers {
                        walk(&h.body, globals, nonlocals);
                    }
                    walk(orelse, globals, nonlocals);
                    walk(finalbody, globals, nonlocals);
                }
                StmtKind::Match { cases, .. } => cases.iter().for_each(|c| walk(&c.body, globals, nonlocals)),
                _ => {}
            }
        }
    }
    let (mut globals, mut nonlocals) = (Vec::new(), Vec::new());
    walk(body, &mut globals, &mut nonlocals);
    (globals, nonlocals)
}
