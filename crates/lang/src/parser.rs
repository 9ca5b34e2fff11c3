//! A recursive-descent parser for the Python subset, one function per grammar rule, in the
//! order of Python's precedence table. It never fails as a whole: an error in a statement is
//! recorded and the parser skips to the next statement (and over the block a broken header
//! introduced), so every error in a script is reported at once.

use crate::ast::*;
use crate::lexer::{tokenize, tokenize_fragment, FStrPart, Tok, Token};
use crate::ScriptError;
use std::rc::Rc;

type PResult<T> = Result<T, ScriptError>;

/// Deep enough for any real program, shallow enough that neither this parser nor the
/// interpreter's recursion can exhaust a wasm stack.
const MAX_NESTING: u32 = 100;

/// Operators chained onto one statement's left-deep expressions (`a + b + …`, `a or b or …`,
/// `x.a.b`, `f()()`, `x[0][0]`): each deepens the tree by one without nesting, and evaluating
/// (and dropping) the tree recurses that deep. 2,000 chained calls overflowed the page's wasm
/// stack; 1,000 leave room for the nesting above.
const MAX_CHAIN_LINKS: u32 = 1000;

pub fn parse(source: &str, file: u16) -> (Module, Vec<ScriptError>) {
    let (tokens, lex_errors) = tokenize(source, file);
    let mut parser = Parser::new(tokens, Vec::new());
    let body = parser.statements_until_eof();
    // A parser error that follows a lexer error is usually its echo: the lexer dropped a stray
    // character (`x = 2 $ 3` → "found a number"), closed a bracket the parser still waits for
    // (`[1, 2)`), or an unclosed bracket swallowed the rest of the script, which the parser then
    // reads as one long line. Keep the lexer's error, which names the cause, and drop parser
    // errors after it on its line, or anywhere after an unclosed bracket.
    let unclosed = lex_errors.iter().filter(|e| e.message.ends_with("was never closed")).map(|e| (e.line, e.col)).min();
    let echo = |e: &ScriptError| {
        unclosed.is_some_and(|at| (e.line, e.col) >= at)
            || lex_errors.iter().any(|l| l.line == e.line && l.col <= e.col)
    };
    let parse_errors: Vec<ScriptError> = parser.errors.into_iter().filter(|e| !echo(e)).collect();
    // A string left open after the bracket on its line most likely holds the closing bracket
    // (`print("hi)`): the unterminated string is then the one mistake to report.
    let string_ate_bracket = |at: &(u32, u32)| {
        lex_errors.iter().any(|e| e.message == "unterminated string" && e.line == at.0 && e.col > at.1)
    };
    let eaten = unclosed.filter(string_ate_bracket);
    let mut errors = lex_errors;
    errors.retain(|e| Some((e.line, e.col)) != eaten);
    errors.extend(parse_errors);
    errors.sort_by_key(|e| (e.line, e.col));
    // One error per place: the first reported there (sorting is stable).
    errors.dedup_by_key(|e| (e.line, e.col));
    (Module { body }, errors)
}

/// An item of a sequence pattern: a pattern, or `*name` (`None` for `*_`).
enum Starred {
    Pattern(Pattern),
    Star(Option<String>),
}

/// A parameter list as parsed, before it becomes part of a `FuncDef`.
#[derive(Default)]
struct Params {
    params: Vec<Param>,
    posonly: usize,
    vararg: Option<String>,
    keyword_only: Vec<Param>,
    kwarg: Option<String>,
}

impl Params {
    fn is_bound(&self, name: &str) -> bool {
        let named = |p: &Param| p.name == name;
        self.params.iter().any(named)
            || self.keyword_only.iter().any(named)
            || self.vararg.as_deref() == Some(name)
            || self.kwarg.as_deref() == Some(name)
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    errors: Vec<ScriptError>,
    nesting: u32,
    /// Chained operators in the current statement (`MAX_CHAIN_LINKS`).
    links: u32,
    /// How many `def`/`lambda` and loops enclose the current point, for `return` and `break`.
    functions: u32,
    loops: u32,
    /// Whether the current point is directly in a class body (not in a method of it).
    in_class_body: bool,
    /// The `__qualname__`s of the functions and classes enclosing the current point, each
    /// with whether it is a class.
    enclosing: Vec<(String, bool)>,
}

fn error(span: Span, message: impl Into<String>) -> ScriptError {
    ScriptError { message: message.into(), line: span.line, col: span.col }
}

/// How a token is named in "expected X, found Y" messages.
fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Name(n) => format!("name '{n}'"),
        Tok::Keyword(k) => format!("'{k}'"),
        Tok::Int(_) | Tok::Float(_) | Tok::Imag(_) => "a number".into(),
        Tok::Str(_) | Tok::FStr(_) => "a string".into(),
        Tok::Op(o) => format!("'{o}'"),
        Tok::Newline => "the end of the line".into(),
        Tok::Indent => "an indent".into(),
        Tok::Dedent => "a dedent".into(),
        Tok::Eof => "the end of the script".into(),
    }
}

impl Parser {
    fn new(tokens: Vec<Token>, errors: Vec<ScriptError>) -> Parser {
        Parser {
            tokens,
            pos: 0,
            errors,
            nesting: 0,
            links: 0,
            functions: 0,
            loops: 0,
            in_class_body: false,
            enclosing: Vec::new(),
        }
    }

    // ---- token helpers ----

    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    /// Whether the logical line from here ends with `:` (a compound statement's header).
    fn line_ends_with_colon(&self) -> bool {
        let mut last = None;
        for ahead in 0.. {
            match self.peek_at(ahead) {
                Tok::Newline | Tok::Eof => break,
                t => last = Some(t),
            }
        }
        matches!(last, Some(Tok::Op(":")))
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        self.tokens.get(self.pos + ahead).or(self.tokens.last()).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn span(&self) -> Span {
        self.tokens.get(self.pos).or(self.tokens.last()).map_or(Span { line: 1, col: 1, file: 0 }, |t| t.span)
    }

    fn advance(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        tok
    }

    fn at_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn at_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Keyword(k) if *k == kw)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let found = self.at_op(op);
        if found {
            self.advance();
        }
        found
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let found = self.at_kw(kw);
        if found {
            self.advance();
        }
        found
    }

    fn expect_op(&mut self, op: &str, context: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{op}' {context}")))
        }
    }

    fn unexpected(&self, expected: &str) -> ScriptError {
        error(self.span(), format!("expected {expected}, found {}", describe(self.peek())))
    }

    fn name(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Name(n) => {
                self.advance();
                Ok(n)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Counts one operator chained onto a left-deep expression, refusing pathological chains.
    fn chain_link(&mut self) -> PResult<()> {
        self.links += 1;
        if self.links > MAX_CHAIN_LINKS {
            return Err(error(
                self.span(),
                format!(
                    "too many chained operators, calls and subscripts in one statement (the playground allows {MAX_CHAIN_LINKS}); split it into several statements"
                ),
            ));
        }
        Ok(())
    }

    /// Runs a rule one nesting level deeper, refusing pathological depths.
    fn nested<T>(&mut self, rule: impl FnOnce(&mut Parser) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            return Err(error(self.span(), "too many nested expressions or blocks"));
        }
        self.nesting += 1;
        let result = rule(self);
        self.nesting -= 1;
        result
    }

    // ---- statements ----

    fn statements_until_eof(&mut self) -> Vec<Stmt> {
        let mut body = Vec::new();
        while !matches!(self.peek(), Tok::Eof) {
            self.statement_into(&mut body);
        }
        body
    }

    /// Parses one line's statement(s) into `out`, recovering from an error.
    fn statement_into(&mut self, out: &mut Vec<Stmt>) {
        let start = self.pos;
        if let Err(e) = self.statement(out) {
            self.errors.push(e);
            self.synchronize(start);
        }
    }

    /// Skips the rest of a broken statement, and the indented block under it if it was a
    /// block header, so one mistake is reported once.
    fn synchronize(&mut self, start: usize) {
        while !matches!(self.peek(), Tok::Newline | Tok::Eof) {
            self.advance();
        }
        self.eat_newline();
        if matches!(self.peek(), Tok::Indent) {
            self.skip_block();
        }
        if self.pos == start {
            self.advance();
        }
    }

    fn skip_block(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.advance() {
                Tok::Indent => depth += 1,
                Tok::Dedent => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                Tok::Eof => return,
                _ => {}
            }
        }
    }

    fn eat_newline(&mut self) -> bool {
        matches!(self.peek(), Tok::Newline) && {
            self.advance();
            true
        }
    }

    fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let span = self.span();
        self.links = 0;
        match self.peek().clone() {
            Tok::Indent => Err(error(span, "unexpected indent")),
            Tok::Dedent => {
                // Only reachable after an inconsistent dedent the lexer reported already.
                self.advance();
                Ok(())
            }
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Op("@") => {
                let mut decorators = Vec::new();
                while self.eat_op("@") {
                    decorators.push(self.test()?);
                    if !self.eat_newline() {
                        return Err(self.unexpected("a new line after the decorator"));
                    }
                }
                if self.at_kw("class") {
                    out.push(self.class(decorators)?);
                    return Ok(());
                }
                if !self.at_kw("def") {
                    return Err(self.unexpected("'def' or 'class' after decorators"));
                }
                out.push(self.def(decorators)?);
                Ok(())
            }
            Tok::Keyword("class") => {
                out.push(self.class(Vec::new())?);
                Ok(())
            }
            // `match` is a keyword only where it starts a line that ends with `:` (a soft
            // keyword): `match = 1` and `match.group(0)` stay names.
            Tok::Name(n)
                if n == "match"
                    && self.line_ends_with_colon()
                    && !matches!(self.peek_at(1), Tok::Op(":" | "." | "=" | ")" | "]" | ",")) =>
            {
                out.push(self.match_stmt()?);
                Ok(())
            }
            // Soft keywords the playground does not have yet: named, rather than "expected the
            // end of the statement" after the word.
            Tok::Name(n) if n == "async" && matches!(self.peek_at(1), Tok::Keyword("def" | "for" | "with")) => {
                Err(error(span, "async functions and coroutines are not supported by the playground yet"))
            }
            Tok::Keyword("def") => {
                out.push(self.def(Vec::new())?);
                Ok(())
            }
            Tok::Keyword("if") => {
                out.push(self.if_stmt()?);
                Ok(())
            }
            Tok::Keyword("while") => {
                self.advance();
                let cond = self.test()?;
                self.expect_op(":", "after the condition of 'while'")?;
                let body = self.loop_body("while")?;
                let orelse = self.loop_else()?;
                out.push(Stmt { span, kind: StmtKind::While { cond, body, orelse } });
                Ok(())
            }
            Tok::Keyword("for") => {
                self.advance();
                let target = self.target_list()?;
                if !self.eat_kw("in") {
                    return Err(self.unexpected("'in' after the target of 'for'"));
                }
                let iter = self.tuple_or_test()?;
                self.expect_op(":", "after the iterable of 'for'")?;
                let body = self.loop_body("for")?;
                let orelse = self.loop_else()?;
                out.push(Stmt { span, kind: StmtKind::For { target, iter, body, orelse } });
                Ok(())
            }
            Tok::Keyword("try") => {
                out.push(self.try_stmt()?);
                Ok(())
            }
            Tok::Keyword("with") => {
                self.advance();
                // `with a as x, b as y:` is `with a as x:` around `with b as y:`.
                let mut items = Vec::new();
                let parens = self.at_op("(") && self.with_items_parenthesised();
                if parens {
                    self.advance();
                }
                loop {
                    let context = self.test()?;
                    // One target per manager (`as (a, b)` unpacks; `as a, b` is two managers).
                    let target = if self.eat_kw("as") {
                        let t = self.bit_or()?;
                        check_target(&t, true)?;
                        Some(t)
                    } else {
                        None
                    };
                    items.push((context, target));
                    if !self.eat_op(",") || (parens && self.at_op(")")) {
                        break;
                    }
                }
                if parens {
                    self.expect_op(")", "to close the context managers of 'with'")?;
                }
                self.expect_op(":", "after the context manager of 'with'")?;
                let mut body = self.block("with")?;
                while let Some((context, target)) = items.pop() {
                    let span = if items.is_empty() { span } else { context.span };
                    body = vec![Stmt { span, kind: StmtKind::With { context, target, body } }];
                }
                out.extend(body);
                Ok(())
            }
            Tok::Keyword(kw @ ("else" | "elif")) => Err(error(span, format!("'{kw}' without a matching 'if'"))),
            Tok::Keyword(kw @ ("except" | "finally")) => Err(error(span, format!("'{kw}' without a matching 'try'"))),
            _ => self.simple_statements(out),
        }
    }

    /// Simple statements separated by `;`, up to the end of the line.
    fn simple_statements(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        loop {
            out.push(self.simple_statement()?);
            if !self.eat_op(";") || matches!(self.peek(), Tok::Newline | Tok::Eof) {
                break;
            }
        }
        match self.peek() {
            Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::Eof | Tok::Dedent => Ok(()),
            _ => Err(self.unexpected("the end of the statement")),
        }
    }

    fn simple_statement(&mut self) -> PResult<Stmt> {
        let span = self.span();
        let kind = match self.peek().clone() {
            Tok::Keyword("pass") => {
                self.advance();
                StmtKind::Pass
            }
            Tok::Keyword(kw @ ("break" | "continue")) => {
                self.advance();
                if self.loops == 0 {
                    return Err(error(span, format!("'{kw}' outside loop")));
                }
                if kw == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            Tok::Keyword("return") => {
                self.advance();
                if self.functions == 0 {
                    return Err(error(span, "'return' outside function"));
                }
                let value = if matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op(";")) {
                    None
                } else {
                    Some(self.tuple_or_test()?)
                };
                StmtKind::Return(value)
            }
            Tok::Keyword("del") => {
                self.advance();
                let mut targets = Vec::new();
                loop {
                    let t = self.bit_or()?;
                    check_target(&t, true)?;
                    targets.push(t);
                    if !self.eat_op(",") || matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op(";")) {
                        break;
                    }
                }
                StmtKind::Del(targets)
            }
            Tok::Keyword(kw @ ("global" | "nonlocal")) => {
                self.advance();
                let mut names = vec![self.name(&format!("a name after '{kw}'"))?];
                while self.eat_op(",") {
                    names.push(self.name("a name")?);
                }
                if kw == "nonlocal" && self.functions == 0 {
                    return Err(error(span, "nonlocal declaration not allowed at module level"));
                }
                if kw == "global" {
                    StmtKind::Global(names)
                } else {
                    StmtKind::Nonlocal(names)
                }
            }
            Tok::Keyword("raise") => {
                self.advance();
                if matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op(";")) {
                    StmtKind::Raise { exc: None, cause: None }
                } else {
                    let exc = self.test()?;
                    let cause = if self.eat_kw("from") { Some(self.test()?) } else { None };
                    StmtKind::Raise { exc: Some(exc), cause }
                }
            }
            Tok::Keyword("assert") => {
                self.advance();
                let test = self.test()?;
                let msg = if self.eat_op(",") { Some(self.test()?) } else { None };
                StmtKind::Assert { test, msg }
            }
            Tok::Keyword("import") => {
                self.advance();
                let mut modules = Vec::new();
                loop {
                    let module = self.dotted_name()?;
                    let alias = if self.eat_kw("as") { Some(self.name("a name after 'as'")?) } else { None };
                    modules.push((module, alias));
                    if !self.eat_op(",") {
                        break;
                    }
                }
                StmtKind::Import { modules }
            }
            Tok::Keyword("from") => {
                self.advance();
                let module = self.dotted_name()?;
                if !self.eat_kw("import") {
                    return Err(self.unexpected("'import'"));
                }
                if self.eat_op("*") {
                    return Ok(Stmt { span, kind: StmtKind::FromImport { module, names: vec![("*".into(), None)] } });
                }
                let parens = self.eat_op("(");
                let mut names = Vec::new();
                loop {
                    let name = self.name("a name to import")?;
                    let alias = if self.eat_kw("as") { Some(self.name("a name after 'as'")?) } else { None };
                    names.push((name, alias));
                    if !self.eat_op(",") || (parens && self.at_op(")")) {
                        break;
                    }
                }
                if parens {
                    self.expect_op(")", "to close the import list")?;
                }
                StmtKind::FromImport { module, names }
            }
            _ => self.expression_statement()?,
        };
        Ok(Stmt { span, kind })
    }

    fn dotted_name(&mut self) -> PResult<String> {
        let mut name = self.name("a module name")?;
        while self.eat_op(".") {
            name.push('.');
            name.push_str(&self.name("a module name after '.'")?);
        }
        Ok(name)
    }

    fn expression_statement(&mut self) -> PResult<StmtKind> {
        let first = self.yield_or_tuple()?;
        if let Tok::Op(op) = self.peek().clone() {
            if let Some(bin) = aug_op(op) {
                self.advance();
                check_target(&first, false)?;
                let value = self.tuple_or_test()?;
                return Ok(StmtKind::AugAssign { target: first, op: bin, value });
            }
        }
        if self.at_op(":") {
            // `name: annotation [= value]`.
            let span = self.span();
            self.advance();
            if !matches!(first.kind, ExprKind::Name(_) | ExprKind::Attr(..) | ExprKind::Subscript(..)) {
                return Err(error(span, "only single target (not tuple) can be annotated"));
            }
            let annotation = self.test()?;
            let value = if self.eat_op("=") { Some(self.yield_or_tuple()?) } else { None };
            return Ok(StmtKind::AnnAssign { target: first, annotation, value });
        }
        if !self.at_op("=") {
            return Ok(StmtKind::Expr(first));
        }
        let mut targets = vec![first];
        while self.eat_op("=") {
            targets.push(self.yield_or_tuple()?);
        }
        let value = targets.pop().ok_or_else(|| error(self.span(), "expected a value"))?;
        for t in &targets {
            check_target(t, true)?;
        }
        Ok(StmtKind::Assign { targets, value })
    }

    /// An expression statement's expression, or the value of an assignment: a tuple or test,
    /// or `yield [value]` / `yield from value` (the places the playground takes a `yield`).
    fn yield_or_tuple(&mut self) -> PResult<Expr> {
        if !self.at_kw("yield") {
            return self.tuple_or_test();
        }
        let span = self.span();
        self.advance();
        if self.functions == 0 || self.in_class_body {
            return Err(error(span, "'yield' outside function"));
        }
        if self.eat_kw("from") {
            let value = self.test()?;
            return Ok(Expr { span, kind: ExprKind::YieldFrom(Box::new(value)) });
        }
        let value = if matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op(";" | ")" | "=")) {
            None
        } else {
            Some(Box::new(self.tuple_or_test()?))
        };
        Ok(Expr { span, kind: ExprKind::Yield(value) })
    }

    /// The `else:` block of a loop, which runs when the loop ends without `break`.
    fn loop_else(&mut self) -> PResult<Vec<Stmt>> {
        if !self.eat_kw("else") {
            return Ok(Vec::new());
        }
        self.expect_op(":", "after 'else'")?;
        self.block("else")
    }

    /// Whether `with (` opens a parenthesised list of context managers (`with (a as x, b):`)
    /// rather than an expression (`with (a):`, `with (yield x):`): a top-level `as` or `,`
    /// before the matching `)` says so.
    fn with_items_parenthesised(&self) -> bool {
        let mut depth = 0usize;
        let mut ahead = 0;
        loop {
            match self.peek_at(ahead) {
                Tok::Op("(" | "[" | "{") => depth += 1,
                Tok::Op(")" | "]" | "}") => {
                    depth -= 1;
                    if depth == 0 {
                        return false;
                    }
                }
                Tok::Op(",") | Tok::Keyword("as") if depth == 1 => return true,
                Tok::Newline | Tok::Eof => return false,
                _ => {}
            }
            ahead += 1;
        }
    }

    fn try_stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        self.advance();
        self.expect_op(":", "after 'try'")?;
        let body = self.block("try")?;
        let mut handlers = Vec::new();
        while self.at_kw("except") {
            let span = self.span();
            self.advance();
            let (kind, name) = if self.at_op(":") {
                (None, None)
            } else {
                let kind = self.test()?;
                // `except A, B:` is Python 2; `except (A, B):` is the tuple.
                let name = if self.eat_kw("as") { Some(self.name("a name after 'as'")?) } else { None };
                (Some(kind), name)
            };
            if kind.is_none() && handlers.iter().any(|h: &ExceptHandler| h.kind.is_none()) {
                return Err(error(span, "default 'except:' must be last"));
            }
            self.expect_op(":", "after the exception type of 'except'")?;
            let body = self.block("except")?;
            handlers.push(ExceptHandler { span, kind, name, body });
        }
        if let Some(bare) = handlers.iter().position(|h| h.kind.is_none()) {
            if bare + 1 != handlers.len() {
                return Err(error(handlers[bare].span, "default 'except:' must be last"));
            }
        }
        let orelse = if !handlers.is_empty() && self.eat_kw("else") {
            self.expect_op(":", "after 'else'")?;
            self.block("else")?
        } else {
            Vec::new()
        };
        let finalbody = if self.eat_kw("finally") {
            self.expect_op(":", "after 'finally'")?;
            self.block("finally")?
        } else {
            Vec::new()
        };
        if handlers.is_empty() && finalbody.is_empty() {
            return Err(self.unexpected("'except' or 'finally' block"));
        }
        Ok(Stmt { span, kind: StmtKind::Try { body, handlers, orelse, finalbody } })
    }

    /// The `__qualname__` of a function or class named `name` defined here: `f`, `C.m`,
    /// `f.<locals>.g`, as CPython names them.
    fn qualname(&self, name: &str) -> String {
        match self.enclosing.last() {
            None => name.to_string(),
            Some((outer, true)) => format!("{outer}.{name}"),
            Some((outer, false)) => format!("{outer}.<locals>.{name}"),
        }
    }

    fn class(&mut self, decorators: Vec<Expr>) -> PResult<Stmt> {
        let span = self.span();
        self.advance();
        let name = self.name("a class name after 'class'")?;
        let bases = if self.eat_op("(") { self.nested(|p| p.call_args())? } else { Vec::new() };
        self.expect_op(":", "after the class name")?;
        // A class body is no function and no loop: `return`, `yield` and `break` there are
        // errors even inside a function or loop.
        let loops = std::mem::replace(&mut self.loops, 0);
        let functions = std::mem::replace(&mut self.functions, 0);
        let in_class = std::mem::replace(&mut self.in_class_body, true);
        self.enclosing.push((self.qualname(&name), true));
        let body = self.block("class");
        self.enclosing.pop();
        self.loops = loops;
        self.functions = functions;
        self.in_class_body = in_class;
        let class = ClassDef { name, bases, body: body?, decorators, span };
        Ok(Stmt { span, kind: StmtKind::Class(Rc::new(class)) })
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        let kw = if self.eat_kw("if") { "if" } else { self.advance_kw() };
        let cond = self.test()?;
        self.expect_op(":", &format!("after the condition of '{kw}'"))?;
        let body = self.block(kw)?;
        let orelse = if self.at_kw("elif") {
            vec![self.if_stmt()?]
        } else if self.eat_kw("else") {
            self.expect_op(":", "after 'else'")?;
            self.block("else")?
        } else {
            Vec::new()
        };
        Ok(Stmt { span, kind: StmtKind::If { cond, body, orelse } })
    }

    /// `match subject:` then an indented block of `case pattern [if guard]:` clauses.
    fn match_stmt(&mut self) -> PResult<Stmt> {
        let span = self.span();
        self.advance();
        let first = self.test_or_star()?;
        let subject = if self.at_op(",") {
            let mut items = vec![first];
            while self.eat_op(",") && !self.at_op(":") {
                items.push(self.test_or_star()?);
            }
            Expr { span: items[0].span, kind: ExprKind::Tuple(items) }
        } else {
            first
        };
        self.expect_op(":", "after the subject of 'match'")?;
        if !self.eat_newline() || !matches!(self.peek(), Tok::Indent) {
            return Err(error(self.span(), "expected an indented block of 'case' clauses after 'match'"));
        }
        self.advance();
        let mut cases = Vec::new();
        while !matches!(self.peek(), Tok::Dedent | Tok::Eof) {
            if !matches!(self.peek(), Tok::Name(n) if n == "case") {
                return Err(self.unexpected("'case'"));
            }
            self.advance();
            let case_span = self.span();
            let pattern = self.nested(|p| p.case_patterns())?;
            let guard = if self.eat_kw("if") { Some(self.test()?) } else { None };
            self.expect_op(":", "after the pattern of 'case'")?;
            let body = self.block("case")?;
            cases.push(MatchCase { span: case_span, pattern, guard, body });
        }
        self.advance();
        if cases.is_empty() {
            return Err(error(span, "expected an indented block of 'case' clauses after 'match'"));
        }
        let mut irrefutable = cases.iter().take(cases.len() - 1).filter(|c| c.guard.is_none());
        if let Some(c) = irrefutable.find(|c| matches!(c.pattern, Pattern::Wildcard | Pattern::Capture(_))) {
            let what = match &c.pattern {
                Pattern::Capture(n) => format!("name capture '{n}' makes remaining patterns unreachable"),
                _ => "wildcard makes remaining patterns unreachable".to_string(),
            };
            return Err(error(c.span, what));
        }
        Ok(Stmt { span, kind: StmtKind::Match { subject, cases } })
    }

    /// A case's patterns: one, or several separated by commas (an open sequence).
    fn case_patterns(&mut self) -> PResult<Pattern> {
        let first = self.maybe_star_pattern()?;
        if !self.at_op(",") {
            return match first {
                Starred::Pattern(p) => Ok(p),
                Starred::Star(_) => Err(error(self.span(), "star pattern cannot be used outside a sequence")),
            };
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.at_op(":") && !self.at_kw("if") {
            items.push(self.maybe_star_pattern()?);
        }
        self.sequence_pattern(items)
    }

    /// The items of a sequence pattern into a `Pattern::Sequence` (one star at most).
    fn sequence_pattern(&self, items: Vec<Starred>) -> PResult<Pattern> {
        let mut patterns = Vec::with_capacity(items.len());
        let mut star = None;
        for item in items {
            match item {
                Starred::Pattern(p) => patterns.push(p),
                Starred::Star(_) if star.is_some() => {
                    return Err(error(self.span(), "multiple starred names in sequence pattern"))
                }
                Starred::Star(name) => star = Some((patterns.len(), name)),
            }
        }
        Ok(Pattern::Sequence { items: patterns, star })
    }

    fn maybe_star_pattern(&mut self) -> PResult<Starred> {
        if self.eat_op("*") {
            let name = self.name("a name after '*' in a pattern")?;
            return Ok(Starred::Star((name != "_").then_some(name)));
        }
        Ok(Starred::Pattern(self.pattern()?))
    }

    /// `or_pattern ['as' name]`.
    fn pattern(&mut self) -> PResult<Pattern> {
        let mut alternatives = vec![self.closed_pattern()?];
        while self.eat_op("|") {
            alternatives.push(self.closed_pattern()?);
        }
        let pattern = if alternatives.len() == 1 { alternatives.remove(0) } else { Pattern::Or(alternatives) };
        if !self.eat_kw("as") {
            return Ok(pattern);
        }
        let span = self.span();
        let name = self.name("a name after 'as'")?;
        if name == "_" {
            return Err(error(span, "cannot use '_' as a target"));
        }
        Ok(Pattern::As(Box::new(pattern), name))
    }

    fn closed_pattern(&mut self) -> PResult<Pattern> {
        let span = self.span();
        match self.peek().clone() {
            Tok::Name(n) => {
                self.advance();
                let mut class = Expr { span, kind: ExprKind::Name(n.clone()) };
                let dotted = self.at_op(".");
                while self.eat_op(".") {
                    let attr = self.name("a name after '.'")?;
                    class = Expr { span, kind: ExprKind::Attr(Box::new(class), attr) };
                }
                if self.eat_op("(") {
                    return self.nested(|p| p.class_pattern(class));
                }
                Ok(match n.as_str() {
                    _ if dotted => Pattern::Value(class),
                    "_" => Pattern::Wildcard,
                    _ => Pattern::Capture(n),
                })
            }
            Tok::Int(_) | Tok::Float(_) | Tok::Op("-") => {
                let negative = self.eat_op("-");
                let number = match self.peek().clone() {
                    Tok::Int(i) => ExprKind::Int(i),
                    Tok::Float(x) => ExprKind::Float(x),
                    _ => return Err(self.unexpected("a number after '-' in a pattern")),
                };
                self.advance();
                let number = Expr { span, kind: number };
                let value = if negative { ExprKind::Unary(UnaryOp::Neg, Box::new(number)) } else { number.kind };
                Ok(Pattern::Value(Expr { span, kind: value }))
            }
            Tok::Str(_) => Ok(Pattern::Value(self.strings()?)),
            Tok::Keyword(k @ ("None" | "True" | "False")) => {
                self.advance();
                let kind = match k {
                    "None" => ExprKind::None,
                    k => ExprKind::Bool(k == "True"),
                };
                Ok(Pattern::Value(Expr { span, kind }))
            }
            Tok::Op(open @ ("(" | "[")) => {
                self.advance();
                let close = if open == "(" { ")" } else { "]" };
                self.nested(|p| {
                    let mut items = Vec::new();
                    let mut comma = false;
                    while !p.at_op(close) {
                        items.push(p.maybe_star_pattern()?);
                        if !p.eat_op(",") {
                            break;
                        }
                        comma = true;
                    }
                    p.expect_op(close, "to close the pattern")?;
                    // `(p)` groups; `(p,)`, `()` and any `[...]` are sequences.
                    if open == "(" && items.len() == 1 && !comma {
                        if let Some(Starred::Pattern(_)) = items.first() {
                            let Some(Starred::Pattern(p)) = items.pop() else { unreachable!("checked above") };
                            return Ok(p);
                        }
                    }
                    p.sequence_pattern(items)
                })
            }
            Tok::Op("{") => {
                self.advance();
                self.nested(|p| p.mapping_pattern())
            }
            _ => Err(self.unexpected("a pattern")),
        }
    }

    /// After `Class(`: positional patterns, then `name=pattern`s, then `)`.
    fn class_pattern(&mut self, class: Expr) -> PResult<Pattern> {
        let (mut args, mut keywords) = (Vec::new(), Vec::new());
        while !self.at_op(")") {
            let keyword = match (self.peek().clone(), self.peek_at(1)) {
                (Tok::Name(n), Tok::Op("=")) => Some(n),
                _ => None,
            };
            if let Some(name) = keyword {
                self.advance();
                self.advance();
                keywords.push((name, self.pattern()?));
            } else if !keywords.is_empty() {
                return Err(error(self.span(), "positional patterns follow keyword patterns"));
            } else {
                args.push(self.pattern()?);
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")", "to close the class pattern")?;
        Ok(Pattern::Class { class, args, keywords })
    }

    /// After `{`: `key: pattern` entries (a key is a literal or a dotted name), then
    /// `**rest`, then `}`.
    fn mapping_pattern(&mut self) -> PResult<Pattern> {
        let (mut entries, mut rest) = (Vec::new(), None);
        while !self.at_op("}") {
            if self.eat_op("**") {
                rest = Some(self.name("a name after '**'")?);
                self.eat_op(",");
                break;
            }
            let key = match self.closed_pattern()? {
                Pattern::Value(e) => e,
                _ => {
                    return Err(error(
                        self.span(),
                        "mapping pattern keys may only match literals and attribute lookups",
                    ))
                }
            };
            self.expect_op(":", "after a mapping pattern's key")?;
            entries.push((key, self.pattern()?));
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("}", "to close the mapping pattern")?;
        Ok(Pattern::Mapping { entries, rest })
    }

    /// Consumes `elif` (the only other keyword that starts an `if` chain).
    fn advance_kw(&mut self) -> &'static str {
        self.advance();
        "elif"
    }

    fn loop_body(&mut self, kw: &str) -> PResult<Vec<Stmt>> {
        self.loops += 1;
        let body = self.block(kw);
        self.loops -= 1;
        body
    }

    /// The body after a `:`: an indented block, or simple statements on the same line.
    fn block(&mut self, after: &str) -> PResult<Vec<Stmt>> {
        self.nested(|p| {
            let mut body = Vec::new();
            if !p.eat_newline() {
                p.simple_statements(&mut body)?;
                return Ok(body);
            }
            if !matches!(p.peek(), Tok::Indent) {
                return Err(error(p.span(), format!("expected an indented block after '{after}'")));
            }
            p.advance();
            while !matches!(p.peek(), Tok::Dedent | Tok::Eof) {
                p.statement_into(&mut body);
            }
            p.advance();
            Ok(body)
        })
    }

    fn def(&mut self, decorators: Vec<Expr>) -> PResult<Stmt> {
        let span = self.span();
        self.advance();
        let name = self.name("a function name after 'def'")?;
        self.expect_op("(", "after the function name")?;
        let Params { params, posonly, vararg, keyword_only, kwarg } = self.params(")")?;
        self.expect_op(")", "to close the parameter list")?;
        if self.eat_op("->") {
            self.test()?;
        }
        self.expect_op(":", "after the parameters of 'def'")?;
        // A loop outside the def does not make `break` legal inside it.
        let loops = std::mem::replace(&mut self.loops, 0);
        let in_class = std::mem::replace(&mut self.in_class_body, false);
        let qualname = self.qualname(&name);
        self.enclosing.push((qualname.clone(), false));
        self.functions += 1;
        let body = self.block("def");
        self.functions -= 1;
        self.enclosing.pop();
        self.loops = loops;
        self.in_class_body = in_class;
        let body = body?;
        let (globals, nonlocals) = declared_names(&body);
        for name in globals.iter().chain(&nonlocals) {
            let is_param = params.iter().chain(&keyword_only).any(|p| &p.name == name)
                || vararg.as_ref() == Some(name)
                || kwarg.as_ref() == Some(name);
            if is_param {
                let kind = if globals.contains(name) { "global" } else { "nonlocal" };
                return Err(error(span, format!("name '{name}' is parameter and {kind}")));
            }
        }
        let is_generator = yields(&body);
        let def = FuncDef {
            name,
            qualname,
            params,
            vararg,
            keyword_only,
            kwarg,
            body,
            decorators,
            span,
            is_generator,
            posonly,
            globals,
            nonlocals,
        };
        Ok(Stmt { span, kind: StmtKind::Def(Rc::new(def)) })
    }

    /// `a, b=1, *args, c, d=2, **kwargs` (or a bare `*` before the keyword-only ones) up to
    /// `close` (`)` for def, `:` for lambda).
    fn params(&mut self, close: &str) -> PResult<Params> {
        let mut out = Params::default();
        let mut star = false;
        while !self.at_op(close) {
            let span = self.span();
            if out.kwarg.is_some() {
                return Err(error(span, "arguments cannot follow var-keyword argument"));
            }
            if self.at_op("/") && !star {
                self.advance();
                if out.params.is_empty() || out.posonly > 0 {
                    return Err(error(span, "at least one argument must precede /"));
                }
                out.posonly = out.params.len();
                if !self.eat_op(",") {
                    break;
                }
                continue;
            }
            if self.eat_op("**") {
                let name = self.name("a parameter name after '**'")?;
                if out.is_bound(&name) {
                    return Err(error(span, format!("duplicate argument '{name}' in function definition")));
                }
                out.kwarg = Some(name);
            } else if self.eat_op("*") {
                if star {
                    return Err(error(span, "* argument may appear only once"));
                }
                star = true;
                if matches!(self.peek(), Tok::Name(_)) {
                    let name = self.name("a parameter name after '*'")?;
                    if out.is_bound(&name) {
                        return Err(error(span, format!("duplicate argument '{name}' in function definition")));
                    }
                    out.vararg = Some(name);
                } else if !(self.at_op(",") && matches!(self.peek_at(1), Tok::Name(_))) {
                    return Err(error(span, "named arguments must follow bare *"));
                }
            } else {
                let name = self.name("a parameter name")?;
                if out.is_bound(&name) {
                    return Err(error(span, format!("duplicate argument '{name}' in function definition")));
                }
                if self.at_op(":") && close == ")" {
                    self.advance();
                    self.test()?;
                }
                let default = if self.eat_op("=") { Some(self.test()?) } else { None };
                if star {
                    out.keyword_only.push(Param { name, default });
                } else {
                    if default.is_none() && out.params.iter().any(|p| p.default.is_some()) {
                        return Err(error(span, "parameter without a default follows parameter with a default"));
                    }
                    out.params.push(Param { name, default });
                }
            }
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(out)
    }

    // ---- expressions ----

    /// A comma-separated list that becomes a tuple when it has a comma (`return a, b`).
    fn tuple_or_test(&mut self) -> PResult<Expr> {
        let span = self.span();
        let first = self.test_or_star()?;
        if !self.at_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.ends_expression_list() {
                break;
            }
            items.push(self.test_or_star()?);
        }
        Ok(Expr { span, kind: ExprKind::Tuple(items) })
    }

    /// An item of a tuple or list: an expression, or `*xs` unpacked into it.
    fn test_or_star(&mut self) -> PResult<Expr> {
        let span = self.span();
        if self.eat_op("*") {
            let e = self.test()?;
            return Ok(Expr { span, kind: ExprKind::Starred(Box::new(e)) });
        }
        self.test()
    }

    fn ends_expression_list(&self) -> bool {
        matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op("=" | ")" | "]" | "}" | ":" | ";"))
            || matches!(self.peek(), Tok::Op(op) if aug_op(op).is_some())
    }

    /// Loop targets: names and tuples of names, parsed below comparisons so `in` is not eaten.
    fn target_list(&mut self) -> PResult<Expr> {
        let span = self.span();
        let item = |p: &mut Self| {
            let span = p.span();
            if p.eat_op("*") {
                return Ok(Expr { span, kind: ExprKind::Starred(Box::new(p.bit_or()?)) });
            }
            p.bit_or()
        };
        let first = item(self)?;
        let target = if self.at_op(",") {
            let mut items = vec![first];
            while self.eat_op(",") && !self.at_kw("in") {
                items.push(item(self)?);
            }
            Expr { span, kind: ExprKind::Tuple(items) }
        } else {
            first
        };
        check_target(&target, true)?;
        Ok(target)
    }

    /// `test`: lambda, or a conditional expression.
    fn test(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            if p.at_kw("lambda") {
                return p.lambda();
            }
            let span = p.span();
            if let (Tok::Name(name), Tok::Op(":=")) = (p.peek().clone(), p.peek_at(1).clone()) {
                p.advance();
                p.advance();
                let value = p.test()?;
                return Ok(Expr { span, kind: ExprKind::NamedExpr(name, Box::new(value)) });
            }
            let then = p.or_test()?;
            if !p.eat_kw("if") {
                return Ok(then);
            }
            let cond = p.or_test()?;
            if !p.eat_kw("else") {
                return Err(p.unexpected("'else' in the conditional expression"));
            }
            let orelse = p.test()?;
            Ok(Expr {
                span,
                kind: ExprKind::IfExp { cond: Box::new(cond), then: Box::new(then), orelse: Box::new(orelse) },
            })
        })
    }

    fn lambda(&mut self) -> PResult<Expr> {
        let span = self.span();
        self.advance();
        let Params { params, posonly, vararg, keyword_only, kwarg } = self.params(":")?;
        self.expect_op(":", "after the parameters of 'lambda'")?;
        let loops = std::mem::replace(&mut self.loops, 0);
        let qualname = self.qualname("<lambda>");
        self.enclosing.push((qualname.clone(), false));
        self.functions += 1;
        let body = self.test();
        self.functions -= 1;
        self.enclosing.pop();
        self.loops = loops;
        let body = body?;
        let ret = Stmt { span: body.span, kind: StmtKind::Return(Some(body)) };
        let def = FuncDef {
            name: "<lambda>".into(),
            qualname,
            params,
            vararg,
            keyword_only,
            kwarg,
            body: vec![ret],
            decorators: vec![],
            span,
            is_generator: false,
            posonly,
            globals: vec![],
            nonlocals: vec![],
        };
        Ok(Expr { span, kind: ExprKind::Lambda(Rc::new(def)) })
    }

    fn or_test(&mut self) -> PResult<Expr> {
        let mut left = self.and_test()?;
        while self.at_kw("or") {
            self.chain_link()?;
            let span = self.span();
            self.advance();
            let right = self.and_test()?;
            left = Expr { span, kind: ExprKind::Or(Box::new(left), Box::new(right)) };
        }
        Ok(left)
    }

    fn and_test(&mut self) -> PResult<Expr> {
        let mut left = self.not_test()?;
        while self.at_kw("and") {
            self.chain_link()?;
            let span = self.span();
            self.advance();
            let right = self.not_test()?;
            left = Expr { span, kind: ExprKind::And(Box::new(left), Box::new(right)) };
        }
        Ok(left)
    }

    fn not_test(&mut self) -> PResult<Expr> {
        if self.at_kw("not") {
            let span = self.span();
            self.advance();
            let operand = self.nested(|p| p.not_test())?;
            return Ok(Expr { span, kind: ExprKind::Unary(UnaryOp::Not, Box::new(operand)) });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let first = self.bit_or()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Op("==") => CmpOp::Eq,
                Tok::Op("!=") => CmpOp::Ne,
                Tok::Op("<") => CmpOp::Lt,
                Tok::Op("<=") => CmpOp::Le,
                Tok::Op(">") => CmpOp::Gt,
                Tok::Op(">=") => CmpOp::Ge,
                Tok::Keyword("in") => CmpOp::In,
                Tok::Keyword("not") if matches!(self.peek_at(1), Tok::Keyword("in")) => {
                    self.advance();
                    CmpOp::NotIn
                }
                Tok::Keyword("is") => {
                    if matches!(self.peek_at(1), Tok::Keyword("not")) {
                        self.advance();
                        CmpOp::IsNot
                    } else {
                        CmpOp::Is
                    }
                }
                _ => break,
            };
            self.advance();
            rest.push((op, self.bit_or()?));
        }
        if rest.is_empty() {
            return Ok(first);
        }
        Ok(Expr { span: first.span, kind: ExprKind::Compare(Box::new(first), rest) })
    }

    /// One level of left-associative binary operators.
    fn binary_level(&mut self, ops: &[(&str, BinOp)], next: fn(&mut Parser) -> PResult<Expr>) -> PResult<Expr> {
        let start = self.span();
        let mut left = next(self)?;
        while let Some(&(_, op)) = ops.iter().find(|(sym, _)| self.at_op(sym)) {
            self.chain_link()?;
            let span = self.span();
            self.advance();
            let right = next(self)?;
            left = Expr { span, kind: ExprKind::Binary(op, Box::new(left), Box::new(right), start) };
        }
        Ok(left)
    }

    fn bit_or(&mut self) -> PResult<Expr> {
        self.binary_level(&[("|", BinOp::BitOr)], Parser::bit_xor)
    }

    fn bit_xor(&mut self) -> PResult<Expr> {
        self.binary_level(&[("^", BinOp::BitXor)], Parser::bit_and)
    }

    fn bit_and(&mut self) -> PResult<Expr> {
        self.binary_level(&[("&", BinOp::BitAnd)], Parser::shift)
    }

    fn shift(&mut self) -> PResult<Expr> {
        self.binary_level(&[("<<", BinOp::LShift), (">>", BinOp::RShift)], Parser::arith)
    }

    fn arith(&mut self) -> PResult<Expr> {
        self.binary_level(&[("+", BinOp::Add), ("-", BinOp::Sub)], Parser::term)
    }

    fn term(&mut self) -> PResult<Expr> {
        let ops =
            [("*", BinOp::Mul), ("/", BinOp::Div), ("//", BinOp::FloorDiv), ("%", BinOp::Mod), ("@", BinOp::MatMul)];
        self.binary_level(&ops, Parser::factor)
    }

    fn factor(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::Op("-") => UnaryOp::Neg,
            Tok::Op("+") => UnaryOp::Pos,
            Tok::Op("~") => UnaryOp::Invert,
            _ => return self.power(),
        };
        let span = self.span();
        self.advance();
        let operand = self.nested(|p| p.factor())?;
        Ok(Expr { span, kind: ExprKind::Unary(op, Box::new(operand)) })
    }

    /// `a ** b`: right-associative, and binds tighter than a unary minus on its left
    /// (`-2 ** 2 == -4`) but not on its right (`2 ** -1`).
    fn power(&mut self) -> PResult<Expr> {
        let start = self.span();
        let base = self.primary()?;
        if !self.at_op("**") {
            return Ok(base);
        }
        let span = self.span();
        self.advance();
        let exp = self.nested(|p| p.factor())?;
        Ok(Expr { span, kind: ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exp), start) })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        loop {
            if matches!(self.peek(), Tok::Op("." | "(" | "[")) {
                self.chain_link()?;
            }
            if self.eat_op(".") {
                let name = self.name("an attribute name after '.'")?;
                e = Expr { span: e.span, kind: ExprKind::Attr(Box::new(e), name) };
            } else if self.eat_op("(") {
                let args = self.nested(|p| p.call_args())?;
                e = Expr { span: e.span, kind: ExprKind::Call { func: Box::new(e), args } };
            } else if self.eat_op("[") {
                let index = self.nested(|p| p.subscript())?;
                self.expect_op("]", "to close the subscript")?;
                e = Expr { span: e.span, kind: ExprKind::Subscript(Box::new(e), Box::new(index)) };
            } else {
                return Ok(e);
            }
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        while !self.at_op(")") {
            if self.eat_op("**") {
                args.push(Arg::DoubleStar(self.test()?));
            } else if self.at_op("*") {
                let span = self.span();
                self.advance();
                if args.iter().any(|a| matches!(a, Arg::DoubleStar(_))) {
                    return Err(error(span, "iterable argument unpacking follows keyword argument unpacking"));
                }
                args.push(Arg::Star(self.test()?));
            } else if matches!(self.peek(), Tok::Name(_)) && matches!(self.peek_at(1), Tok::Op("=")) {
                let name = self.name("a keyword")?;
                self.advance();
                args.push(Arg::Keyword(name, self.test()?));
            } else {
                let span = self.span();
                let value = self.test()?;
                if args.iter().any(|a| matches!(a, Arg::DoubleStar(_))) {
                    return Err(error(span, "positional argument follows keyword argument unpacking"));
                }
                if matches!(args.last(), Some(Arg::Keyword(..))) {
                    return Err(error(span, "positional argument follows keyword argument"));
                }
                if self.at_kw("for") {
                    let clauses = self.comp_clauses()?;
                    args.push(Arg::Positional(generator_expression(value, clauses, span, self.qualname("<genexpr>"))));
                } else {
                    args.push(Arg::Positional(value));
                }
            }
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op(")", "to close the call")?;
        Ok(args)
    }

    /// The inside of `x[...]`: one item, or a tuple of items, each possibly a slice.
    fn subscript(&mut self) -> PResult<Expr> {
        let span = self.span();
        let first = self.slice_item()?;
        if !self.at_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.at_op("]") {
            items.push(self.slice_item()?);
        }
        Ok(Expr { span, kind: ExprKind::Tuple(items) })
    }

    fn slice_item(&mut self) -> PResult<Expr> {
        let span = self.span();
        let bound = |p: &mut Parser| -> PResult<Option<Box<Expr>>> {
            if p.at_op(":") || p.at_op("]") || p.at_op(",") {
                Ok(None)
            } else {
                Ok(Some(Box::new(p.test()?)))
            }
        };
        let start = bound(self)?;
        if !self.eat_op(":") {
            return start.map(|e| *e).ok_or_else(|| self.unexpected("an index"));
        }
        let stop = bound(self)?;
        let step = if self.eat_op(":") { bound(self)? } else { None };
        Ok(Expr { span, kind: ExprKind::Slice(start, stop, step) })
    }

    fn comp_clauses(&mut self) -> PResult<Vec<CompFor>> {
        let mut clauses = Vec::new();
        while self.eat_kw("for") {
            let target = self.target_list()?;
            if !self.eat_kw("in") {
                return Err(self.unexpected("'in' in the comprehension"));
            }
            let iter = self.or_test()?;
            let mut conds = Vec::new();
            while self.eat_kw("if") {
                conds.push(self.or_test()?);
            }
            clauses.push(CompFor { target, iter, conds });
        }
        Ok(clauses)
    }

    fn atom(&mut self) -> PResult<Expr> {
        let span = self.span();
        let kind = match self.peek().clone() {
            Tok::Name(n) => {
                self.advance();
                ExprKind::Name(n)
            }
            Tok::Int(i) => {
                self.advance();
                ExprKind::Int(i)
            }
            Tok::Float(x) => {
                self.advance();
                ExprKind::Float(x)
            }
            Tok::Imag(x) => {
                self.advance();
                ExprKind::Imag(x)
            }
            Tok::Str(_) | Tok::FStr(_) => return self.strings(),
            Tok::Keyword("None") => {
                self.advance();
                ExprKind::None
            }
            Tok::Keyword("True") => {
                self.advance();
                ExprKind::Bool(true)
            }
            Tok::Keyword("False") => {
                self.advance();
                ExprKind::Bool(false)
            }
            Tok::Op("...") => {
                self.advance();
                ExprKind::Ellipsis
            }
            Tok::Op("(") => {
                self.advance();
                return self.nested(|p| p.paren(span));
            }
            Tok::Op("[") => {
                self.advance();
                return self.nested(|p| p.list(span));
            }
            Tok::Op("{") => {
                self.advance();
                return self.nested(|p| p.dict(span));
            }
            _ => return Err(self.unexpected("an expression")),
        };
        Ok(Expr { span, kind })
    }

    fn paren(&mut self, span: Span) -> PResult<Expr> {
        if self.eat_op(")") {
            return Ok(Expr { span, kind: ExprKind::Tuple(vec![]) });
        }
        if self.at_kw("yield") {
            let e = self.yield_or_tuple()?;
            self.expect_op(")", "to close the parenthesis")?;
            return Ok(e);
        }
        let first = self.test_or_star()?;
        if self.at_kw("for") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return Err(error(first.span, "iterable unpacking cannot be used in comprehension"));
            }
            let clauses = self.comp_clauses()?;
            self.expect_op(")", "to close the generator expression")?;
            return Ok(generator_expression(first, clauses, span, self.qualname("<genexpr>")));
        }
        if self.eat_op(")") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return Err(error(first.span, "cannot use starred expression here"));
            }
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.at_op(")") {
            items.push(self.test_or_star()?);
        }
        self.expect_op(")", "to close the parenthesis")?;
        Ok(Expr { span, kind: ExprKind::Tuple(items) })
    }

    fn list(&mut self, span: Span) -> PResult<Expr> {
        let mut items = Vec::new();
        if !self.at_op("]") {
            let first = self.test_or_star()?;
            if self.at_kw("for") {
                if matches!(first.kind, ExprKind::Starred(_)) {
                    return Err(error(first.span, "iterable unpacking cannot be used in comprehension"));
                }
                let clauses = self.comp_clauses()?;
                self.expect_op("]", "to close the list comprehension")?;
                return Ok(Expr { span, kind: ExprKind::ListComp { elt: Box::new(first), clauses } });
            }
            items.push(first);
            while self.eat_op(",") && !self.at_op("]") {
                items.push(self.test_or_star()?);
            }
        }
        self.expect_op("]", "to close the list")?;
        Ok(Expr { span, kind: ExprKind::List(items) })
    }

    /// `{...}`: a dict or a set display, or a comprehension of either.
    fn dict(&mut self, span: Span) -> PResult<Expr> {
        let mut items = Vec::new();
        if self.eat_op("}") {
            return Ok(Expr { span, kind: ExprKind::Dict(items) });
        }
        let first_key = if self.eat_op("**") {
            None
        } else {
            let key = self.test_or_star()?;
            if !self.at_op(":") {
                return self.set(key, span);
            }
            self.advance();
            Some(key)
        };
        let value = if first_key.is_some() { self.test()? } else { self.bit_or()? };
        if self.at_kw("for") {
            let Some(key) = first_key else {
                return Err(error(value.span, "dict unpacking cannot be used in dict comprehension"));
            };
            let clauses = self.comp_clauses()?;
            self.expect_op("}", "to close the dict comprehension")?;
            let kind = ExprKind::DictComp { key: Box::new(key), value: Box::new(value), clauses };
            return Ok(Expr { span, kind });
        }
        items.push((first_key, value));
        while self.eat_op(",") && !self.at_op("}") {
            if self.eat_op("**") {
                items.push((None, self.bit_or()?));
                continue;
            }
            let key = self.test()?;
            self.expect_op(":", "after the dict key")?;
            items.push((Some(key), self.test()?));
        }
        self.expect_op("}", "to close the dict")?;
        Ok(Expr { span, kind: ExprKind::Dict(items) })
    }

    /// The rest of a set display or comprehension after its first item.
    fn set(&mut self, first: Expr, span: Span) -> PResult<Expr> {
        if self.at_kw("for") {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return Err(error(first.span, "iterable unpacking cannot be used in comprehension"));
            }
            let clauses = self.comp_clauses()?;
            self.expect_op("}", "to close the set comprehension")?;
            return Ok(Expr { span, kind: ExprKind::SetComp { elt: Box::new(first), clauses } });
        }
        let mut items = vec![first];
        while self.eat_op(",") && !self.at_op("}") {
            items.push(self.test_or_star()?);
        }
        self.expect_op("}", "to close the set")?;
        Ok(Expr { span, kind: ExprKind::Set(items) })
    }

    /// Adjacent string literals concatenate; any f-string among them makes the whole an f-string.
    fn strings(&mut self) -> PResult<Expr> {
        let span = self.span();
        let mut parts: Vec<FPart> = Vec::new();
        let mut formatted = false;
        loop {
            match self.peek().clone() {
                Tok::Str(s) => parts.push(FPart::Text(s)),
                Tok::FStr(fparts) => {
                    formatted = true;
                    for p in fparts {
                        parts.push(match p {
                            FStrPart::Text(t) => FPart::Text(t),
                            FStrPart::Field { source, span, spec, conversion } => {
                                FPart::Field { expr: self.fstring_field(&source, span)?, spec, conversion }
                            }
                        });
                    }
                }
                _ => break,
            }
            self.advance();
        }
        if formatted {
            return Ok(Expr { span, kind: ExprKind::FString(parts) });
        }
        let text: String = parts
            .into_iter()
            .map(|p| match p {
                FPart::Text(t) => t,
                FPart::Field { .. } => String::new(),
            })
            .collect();
        Ok(Expr { span, kind: ExprKind::Str(text) })
    }

    fn fstring_field(&mut self, source: &str, span: Span) -> PResult<Expr> {
        let (tokens, errors) = tokenize_fragment(source, span);
        if let Some(e) = errors.into_iter().next() {
            return Err(e);
        }
        let mut sub = Parser::new(tokens, Vec::new());
        sub.nesting = self.nesting;
        let parsed = sub.test().and_then(|expr| match sub.peek() {
            Tok::Eof => Ok(expr),
            _ => Err(sub.unexpected("'}' after the f-string expression")),
        });
        // The fragment's end is the field's closing brace, not the end of the script.
        parsed.map_err(|mut e| {
            if let Some(start) = e.message.strip_suffix("found the end of the script") {
                e.message = format!("{start}found the '}}' that ends the f-string field");
            }
            e
        })
    }
}

/// `(elt for t in first if c for u in second)` as a generator function of one parameter,
/// `.0`, the first iterable: `for t in .0: if c: for u in second: yield elt`.
fn generator_expression(elt: Expr, clauses: Vec<CompFor>, span: Span, qualname: String) -> Expr {
    let mut clauses = clauses.into_iter();
    let first = clauses.next().expect("a generator expression has a `for` clause");
    let first_iter = first.iter;
    let mut levels = vec![(first.target, Expr { span, kind: ExprKind::Name(".0".into()) }, first.conds)];
    levels.extend(clauses.map(|c| (c.target, c.iter, c.conds)));
    let mut body = vec![Stmt {
        span: elt.span,
        kind: StmtKind::Expr(Expr { span: elt.span, kind: ExprKind::Yield(Some(Box::new(elt))) }),
    }];
    for (target, iter, conds) in levels.into_iter().rev() {
        for cond in conds.into_iter().rev() {
            body = vec![Stmt { span: cond.span, kind: StmtKind::If { cond, body, orelse: vec![] } }];
        }
        body = vec![Stmt { span: target.span, kind: StmtKind::For { target, iter, body, orelse: vec![] } }];
    }
    let def = FuncDef {
        name: "<genexpr>".into(),
        qualname,
        params: vec![Param { name: ".0".into(), default: None }],
        vararg: None,
        keyword_only: vec![],
        kwarg: None,
        body,
        decorators: vec![],
        span,
        is_generator: true,
        posonly: 0,
        globals: vec![],
        nonlocals: vec![],
    };
    Expr { span, kind: ExprKind::GeneratorExp { def: Rc::new(def), first: Box::new(first_iter) } }
}

fn aug_op(op: &str) -> Option<BinOp> {
    Some(match op {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" => BinOp::Mul,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "**=" => BinOp::Pow,
        "@=" => BinOp::MatMul,
        "&=" => BinOp::BitAnd,
        "|=" => BinOp::BitOr,
        "^=" => BinOp::BitXor,
        "<<=" => BinOp::LShift,
        ">>=" => BinOp::RShift,
        _ => return None,
    })
}

/// Checks that `e` can be assigned to: a name, a subscript, an attribute or (if `unpack`)
/// a tuple or list of targets.
fn check_target(e: &Expr, unpack: bool) -> PResult<()> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Subscript(..) | ExprKind::Attr(..) => Ok(()),
        ExprKind::Tuple(items) | ExprKind::List(items) if unpack => {
            let starred: Vec<&Expr> = items.iter().filter(|i| matches!(i.kind, ExprKind::Starred(_))).collect();
            if let Some(second) = starred.get(1) {
                return Err(error(second.span, "multiple starred expressions in assignment"));
            }
            items.iter().try_for_each(|i| match &i.kind {
                ExprKind::Starred(inner) => check_target(inner, true),
                _ => check_target(i, true),
            })
        }
        ExprKind::Starred(_) => Err(error(e.span, "starred assignment target must be in a list or tuple")),
        _ => {
            let what = match &e.kind {
                ExprKind::Call { .. } => "function call",
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::None => {
                    "literal"
                }
                ExprKind::Tuple(_) | ExprKind::List(_) => "a tuple in augmented assignment",
                _ => "expression",
            };
            Err(error(e.span, format!("cannot assign to {what}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use expect_test::{expect, Expect};

    fn check(src: &str, expected: Expect) {
        let (module, errors) = parse(src, 0);
        assert!(errors.is_empty(), "{errors:?}");
        expected.assert_eq(&module.to_string());
    }

    fn check_errors(src: &str, expected: Expect) {
        let (_, errors) = parse(src, 0);
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        expected.assert_eq(&text.join("\n"));
    }

    #[test]
    fn precedence() {
        check(
            "x = -2 ** -1 ** 2 + a * b @ c if p or not q and r else lambda y, z=1: y\n",
            expect![[r#"
                (= x (if (or p (and (not q) r)) (+ (- (** 2 (- (** 1 2)))) (@ (* a b) c)) (lambda (y z=1) y)))
            "#]],
        );
        check(
            "a < b <= c is not d\n",
            expect![[r#"
            (cmp a < b <= c is not d)
        "#]],
        );
    }

    #[test]
    fn the_skeleton_script() {
        check(
            "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x, w):\n    return jnp.tanh(x @ w) * 2.0 + 1.0\n\nx = jnp.arange(12.0).reshape(3, 4) / 10.0\nprint(f(x, w))\n",
            expect![[r#"
                (import jax)
                (import jax.numpy as jnp)
                @jax.jit
                (def f (x w)
                  (return (+ (* (call jnp.tanh (@ x w)) 2.0) 1.0))
                )
                (= x (/ (call (call jnp.arange 12.0).reshape 3 4) 10.0))
                (call print (call f x w))
            "#]],
        );
    }

    #[test]
    fn statements_and_collections() {
        check(
            "import math, jax.numpy as jnp\nfrom jax import grad, jit as J\nfor i, (a, b) in enumerate(zip(xs, ys)):\n    if a: continue\n    elif b:\n        break\n    else:\n        pass\nwhile n > 0: n -= 1\nwith jax.default_matmul_precision('highest') as p:\n    y = a @ b\nwith s: pass\nd = {k: v for k, v in d.items() if v}\ny = [x * 2 for x in range(3)][1:][::2]\nz = x[:, 0], x[None, ...], f'{a:.3f} and {b}!'\ndef g(a, b=2, *rest):\n    return\n",
            expect![[r#"
                (import math, jax.numpy as jnp)
                (from jax import grad, jit as J)
                (for (tuple i (tuple a b)) in (call enumerate (call zip xs ys))
                  (if a
                    continue
                   else
                    (if b
                      break
                     else
                      pass
                    )
                  )
                )
                (while (cmp n > 0)
                  (-= n 1)
                )
                (with (call jax.default_matmul_precision "highest") as p
                  (= y (@ a b))
                )
                (with s
                  pass
                )
                (= d (dictcomp k: v for (tuple k v) in (call d.items) if v))
                (= y (index (index (listcomp (* x 2) for x in (call range 3)) (slice 1 _ _)) (slice _ _ 2)))
                (= z (tuple (index x (tuple (slice _ _ _) 0)) (index x (tuple None ...)) (f {a:.3f} " and " {b} "!")))
                (def g (a b=2 *rest)
                  (return)
                )
            "#]],
        );
    }

    #[test]
    fn keyword_only_parameters_and_keyword_unpacking() {
        check(
            "def f(x, *args, k, n=2, **options):\n    return g(*args, k=k, **options)\nh = lambda *, n=3: n\n",
            expect![[r#"
                (def f (x *args k n=2 **options)
                  (return (call g *args k=k **options))
                )
                (= h (lambda (* n=3) n))
            "#]],
        );
        check_errors(
            "def f(*):\n    pass\ndef g(*, **k):\n    pass\ndef h(**k, x):\n    pass\ndef i(*a, *b):\n    pass\ndef j(a, **a):\n    pass\nf(**d, 1)\nf(**d, *e)\n",
            expect![[r#"
                1:7: named arguments must follow bare *
                3:7: named arguments must follow bare *
                5:12: arguments cannot follow var-keyword argument
                7:11: * argument may appear only once
                9:10: duplicate argument 'a' in function definition
                11:8: positional argument follows keyword argument unpacking
                12:8: iterable argument unpacking follows keyword argument unpacking"#]],
        );
    }

    #[test]
    fn starred_items_and_targets() {
        check(
            "first, *rest = xs\nfor h, *t in ys: pass\nshape = (*s, 4), [*a, b]\n",
            expect![[r#"
                (= (tuple first *rest) xs)
                (for (tuple h *t) in ys
                  pass
                )
                (= shape (tuple (tuple *s 4) [*a b]))
            "#]],
        );
        check_errors(
            "a, *b, *c = xs\n*a = xs\nx = (*a)\ny = [*v for v in w]\n",
            expect![[r#"
                1:8: multiple starred expressions in assignment
                2:1: starred assignment target must be in a list or tuple
                3:6: cannot use starred expression here
                4:6: iterable unpacking cannot be used in comprehension"#]],
        );
    }

    #[test]
    fn errors_are_all_reported_with_places() {
        check_errors(
            "if x > 1\n    y = 2\nz = (1 +\nprint('hi)\n",
            expect![[r#"
                1:9: expected ':' after the condition of 'if', found the end of the line
                3:5: '(' was never closed
                4:7: unterminated string"#]],
        );
        check_errors(
            "x = 1\n  y = 2\ndef f(1):\n    pass\nreturn 3\nfor x in y\n    break\n1 = x\nf(a=1, 2)\n",
            expect![[r#"
                2:3: unexpected indent
                3:7: expected a parameter name, found a number
                5:1: 'return' outside function
                6:11: expected ':' after the iterable of 'for', found the end of the line
                8:1: cannot assign to literal
                9:8: positional argument follows keyword argument"#]],
        );
    }

    #[test]
    fn classes_exceptions_and_generators() {
        check(
            "@dataclass\nclass P(Base, metaclass=M):\n    x: int = 0\n    y: float\n    def f(self, *a, **k) -> int:\n        global g\n        nonlocal_free = 1\n        return super().f()\ntry:\n    raise E('x') from err\nexcept (A, B) as e:\n    del d[0], o.a\nexcept C:\n    raise\nelse:\n    assert p, 'msg'\nfinally:\n    pass\ndef g():\n    x = yield 1\n    yield from range(3)\n    yield\ns = {1, *t}, {**d, 'k': v}, {x for x in y}, (i * i for i in r if i for j in i)\nif (n := len(s)) > 2: pass\nfor i in r:\n    break\nelse:\n    pass\nwith a as b, c:\n    pass\nx <<= 2\n",
            expect![[r#"
                @dataclass
                (class P (Base metaclass=M)
                  (: x int = 0)
                  (: y float)
                  (def f (self *a **k)
                    (global g)
                    (= nonlocal_free 1)
                    (return (call (call super).f))
                  )
                )
                (try
                  (raise (call E "x") from err)
                 except (tuple A B) as e
                  (del (index d 0) o.a)
                 except C
                  (raise)
                 else
                  (assert p "msg")
                 finally
                  pass
                )
                (def g ()
                  (= x (yield 1))
                  (yield from (call range 3))
                  (yield)
                )
                (= s (tuple (set 1 *t) {**d, "k": v} (setcomp x for x in y) (genexpr r
                  (for i in .0
                    (if i
                      (for j in i
                        (yield (* i i))
                      )
                    )
                  )
                )))
                (if (cmp (:= n (call len s)) > 2)
                  pass
                )
                (for i in r
                  break
                 else
                  pass
                )
                (with a as b
                  (with c
                    pass
                  )
                )
                (<<= x 2)
            "#]],
        );
    }

    #[test]
    fn each_mistake_is_reported_once() {
        // Not also "found a number", "expected ']'", "found 'except'", "'(' was never closed".
        check_errors(
            "x = 2 $ 3\nxs = [1, 2)\ntry:\n    pass\nexcept E:\n    pass\nf'{x +}'\nprint(\"hi)\n",
            expect![[r#"
                1:7: invalid character '$'
                2:11: closing parenthesis ')' does not match opening parenthesis '['
                7:7: expected an expression, found the '}' that ends the f-string field
                8:7: unterminated string"#]],
        );
    }
}
