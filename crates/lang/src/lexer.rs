//! The lexer: source text to Python tokens, with INDENT/DEDENT from indentation and implicit
//! line joining inside brackets. It never fails: problems become errors beside the tokens, and
//! lexing carries on after them so the parser can report everything at once.

use crate::ast::Span;
use crate::ScriptError;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Name(String),
    Keyword(&'static str),
    Int(i64),
    Float(f64),
    /// An imaginary literal (`2j`, `1.5e3J`): its value times 1j.
    Imag(f64),
    Str(String),
    FStr(Vec<FStrPart>),
    /// Punctuation and operators, as written (`+=`, `**`, `(`).
    Op(&'static str),
    Newline,
    Indent,
    Dedent,
    Eof,
}

/// A piece of an f-string: literal text, or a replacement field whose expression the parser
/// parses from `source` (which starts at `span` in the script).
#[derive(Clone, Debug, PartialEq)]
pub enum FStrPart {
    Text(String),
    /// `conversion`: `!r`, `!s` or `!a`, applied before the spec.
    Field {
        source: String,
        span: Span,
        spec: String,
        conversion: Option<char>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "break", "class", "continue", "def", "del", "elif", "else",
    "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Longest first, so `**=` wins over `**` and `*`.
const OPERATORS: &[&str] = &[
    "**=", "//=", "<<=", ">>=", "...", "->", "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "@=",
    "&=", "|=", "^=", "<<", ">>", ":=", "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]",
    "{", "}", ",", ":", ".", ";", "=",
];

pub fn tokenize(source: &str, file: u16) -> (Vec<Token>, Vec<ScriptError>) {
    let mut lexer = Lexer::new(source, Span { line: 1, col: 1, file });
    lexer.run();
    (lexer.tokens, lexer.errors)
}

/// Tokens of an f-string field's expression, positioned where the field sits in the script.
pub fn tokenize_fragment(source: &str, start: Span) -> (Vec<Token>, Vec<ScriptError>) {
    let mut lexer = Lexer::new(source, start);
    lexer.fragment = true;
    lexer.run();
    (lexer.tokens, lexer.errors)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: u32,
    col: u32,
    file: u16,
    tokens: Vec<Token>,
    errors: Vec<ScriptError>,
    indents: Vec<u32>,
    /// Open brackets (and where they opened): newlines inside them are not tokens.
    brackets: Vec<(char, Span)>,
    /// An f-string fragment is one expression: no indentation and no NEWLINE tokens.
    fragment: bool,
}

impl Lexer {
    fn new(source: &str, start: Span) -> Lexer {
        Lexer {
            chars: source.chars().collect(),
            pos: 0,
            line: start.line,
            col: start.col,
            file: start.file,
            tokens: Vec::new(),
            errors: Vec::new(),
            indents: vec![0],
            brackets: Vec::new(),
            fragment: false,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn span(&self) -> Span {
        Span { line: self.line, col: self.col, file: self.file }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(ScriptError { message: message.into(), line: span.line, col: span.col });
    }

    fn push(&mut self, tok: Tok, span: Span) {
        self.tokens.push(Token { tok, span });
    }

    fn run(&mut self) {
        let mut at_line_start = !self.fragment;
        loop {
            if at_line_start {
                if !self.indentation() {
                    continue;
                }
                at_line_start = false;
            }
            let Some(c) = self.peek(0) else { break };
            let start = self.span();
            match c {
                '\n' => {
                    self.bump();
                    if self.brackets.is_empty() && !self.fragment {
                        self.push(Tok::Newline, start);
                        at_line_start = true;
                    }
                }
                ' ' | '\t' | '\r' | '\x0c' => {
                    self.bump();
                }
                '#' => self.skip_comment(),
                '\\' if matches!(self.peek(1), Some('\n')) || self.peek(1) == Some('\r') => {
                    self.bump();
                    if self.peek(0) == Some('\r') {
                        self.bump();
                    }
                    self.bump();
                }
                c if c.is_ascii_digit() || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) => {
                    self.number(start)
                }
                c if c == '_' || c.is_alphabetic() => self.name_or_string(start),
                '"' | '\'' => self.string(start, false, false),
                _ => self.operator(start),
            }
        }
        self.finish();
    }

    /// Measures the indentation of a new logical line and emits INDENT/DEDENT. Returns false
    /// when the line is blank or a comment (nothing to emit; the caller loops to the next line).
    fn indentation(&mut self) -> bool {
        let mut width = 0u32;
        loop {
            match self.peek(0) {
                Some(' ') => width = width.saturating_add(1),
                // Tabs advance to the next multiple of 8, as CPython's tokenizer does.
                Some('\t') => width = (width / 8).saturating_add(1).saturating_mul(8),
                Some('\x0c') | Some('\r') => {}
                _ => break,
            }
            self.bump();
        }
        match self.peek(0) {
            None => return true,
            Some('\n') => {
                self.bump();
                return false;
            }
            Some('#') => {
                self.skip_comment();
                if self.peek(0) == Some('\n') {
                    self.bump();
                }
                return false;
            }
            _ => {}
        }
        let start = self.span();
        let current = self.indents.last().copied().unwrap_or(0);
        if width > current {
            self.indents.push(width);
            self.push(Tok::Indent, start);
        } else {
            while width < self.indents.last().copied().unwrap_or(0) {
                self.indents.pop();
                self.push(Tok::Dedent, start);
            }
            if width != self.indents.last().copied().unwrap_or(0) {
                self.error(start, "unindent does not match any outer indentation level");
                self.indents.push(width);
            }
        }
        true
    }

    fn skip_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    fn finish(&mut self) {
        let end = self.span();
        if let Some(&(open, span)) = self.brackets.first() {
            self.error(span, format!("'{open}' was never closed"));
        }
        if self.fragment {
            self.push(Tok::Eof, end);
            return;
        }
        if !matches!(self.tokens.last().map(|t| &t.tok), None | Some(Tok::Newline | Tok::Dedent)) {
            self.push(Tok::Newline, end);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(Tok::Dedent, end);
        }
        self.push(Tok::Eof, end);
    }

    fn number(&mut self, start: Span) {
        // `0x1f`, `0o777`, `0b1010`.
        let radix = match (self.peek(0), self.peek(1)) {
            (Some('0'), Some('x' | 'X')) => 16,
            (Some('0'), Some('o' | 'O')) => 8,
            (Some('0'), Some('b' | 'B')) => 2,
            _ => 10,
        };
        if radix != 10 {
            self.bump();
            self.bump();
            let mut text = String::new();
            while let Some(c) = self.peek(0).filter(|c| c.is_alphanumeric() || *c == '_') {
                if c != '_' {
                    text.push(c);
                }
                self.bump();
            }
            let kind = match radix {
                16 => "hexadecimal",
                8 => "octal",
                _ => "binary",
            };
            match i64::from_str_radix(&text, radix) {
                Ok(v) => self.push(Tok::Int(v), start),
                Err(e) => {
                    let message = match e.kind() {
                        std::num::IntErrorKind::PosOverflow => {
                            "integer literal too large (the playground's ints are 64-bit)".to_string()
                        }
                        _ => format!("invalid {kind} literal"),
                    };
                    self.error(start, &message);
                    self.push(Tok::Int(0), start);
                }
            }
            return;
        }
        let mut text = String::new();
        let mut is_float = false;
        let digits = |lexer: &mut Lexer, text: &mut String| {
            while let Some(c) = lexer.peek(0) {
                if c.is_ascii_digit() {
                    text.push(c);
                } else if c != '_' {
                    break;
                }
                lexer.bump();
            }
        };
        digits(self, &mut text);
        if self.peek(0) == Some('.') {
            is_float = true;
            text.push('.');
            self.bump();
            digits(self, &mut text);
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let after = if sign { self.peek(2) } else { self.peek(1) };
            if after.is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                text.push('e');
                self.bump();
                if sign {
                    text.extend(self.bump());
                }
                digits(self, &mut text);
            }
        }
        if matches!(self.peek(0), Some('j' | 'J')) && !self.peek(1).is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
            self.push(Tok::Imag(text.parse::<f64>().unwrap_or(f64::NAN)), start);
            return;
        } else if self.peek(0).is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.error(self.span(), "invalid decimal literal");
            while self.peek(0).is_some_and(|c| c.is_alphanumeric() || c == '_') {
                self.bump();
            }
        }
        if is_float {
            let value = text.parse::<f64>().unwrap_or(f64::NAN);
            self.push(Tok::Float(value), start);
        } else {
            match text.parse::<i64>() {
                Ok(v) => self.push(Tok::Int(v), start),
                Err(_) => {
                    self.error(start, "integer literal too large (the playground's ints are 64-bit)");
                    self.push(Tok::Int(0), start);
                }
            }
        }
    }

    fn name_or_string(&mut self, start: Span) {
        // String prefixes: f, r, and their combinations (b'' bytes are not supported).
        let mut prefix = String::new();
        let mut ahead = 0;
        while let Some(c) = self.peek(ahead) {
            if matches!(c.to_ascii_lowercase(), 'f' | 'r') && prefix.len() < 2 {
                prefix.push(c.to_ascii_lowercase());
                ahead += 1;
            } else {
                break;
            }
        }
        if !prefix.is_empty() && matches!(self.peek(ahead), Some('"' | '\'')) {
            for _ in 0..ahead {
                self.bump();
            }
            return self.string(start, prefix.contains('f'), prefix.contains('r'));
        }
        let mut name = String::new();
        while let Some(c) = self.peek(0) {
            if c == '_' || c.is_alphanumeric() {
                name.push(c);
                self.bump();
            } else {
                break;
            }
        }
        match KEYWORDS.iter().find(|&&k| k == name) {
            Some(k) => self.push(Tok::Keyword(k), start),
            None => self.push(Tok::Name(name), start),
        }
    }

    fn string(&mut self, start: Span, is_f: bool, raw: bool) {
        let Some(quote) = self.bump() else { return };
        let triple = self.peek(0) == Some(quote) && self.peek(1) == Some(quote);
        if triple {
            self.bump();
            self.bump();
        }
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            let Some(c) = self.peek(0) else {
                self.error(start, "unterminated string");
                break;
            };
            if c == quote && (!triple || (self.peek(1) == Some(quote) && self.peek(2) == Some(quote))) {
                for _ in 0..if triple { 3 } else { 1 } {
                    self.bump();
                }
                break;
            }
            if c == '\n' && !triple {
                self.error(start, "unterminated string");
                break;
            }
            if c == '\\' && !raw {
                self.bump();
                self.escape(&mut text);
                continue;
            }
            if is_f && c == '{' {
                self.bump();
                if self.peek(0) == Some('{') {
                    self.bump();
                    text.push('{');
                    continue;
                }
                if !text.is_empty() {
                    parts.push(FStrPart::Text(std::mem::take(&mut text)));
                }
                if !self.fstring_field(&mut parts, quote, triple) {
                    // The field ran into the end of the string: report once and stop.
                    self.error(start, "f-string: expecting '}'");
                    while self.peek(0).is_some_and(|c| c != '\n' && c != quote) {
                        self.bump();
                    }
                    self.bump();
                    break;
                }
                continue;
            }
            if is_f && c == '}' {
                self.bump();
                if self.peek(0) == Some('}') {
                    self.bump();
                } else {
                    self.error(self.span(), "f-string: single '}' is not allowed");
                }
                text.push('}');
                continue;
            }
            text.push(c);
            self.bump();
        }
        if is_f {
            if !text.is_empty() {
                parts.push(FStrPart::Text(text));
            }
            self.push(Tok::FStr(parts), start);
        } else {
            self.push(Tok::Str(text), start);
        }
    }

    fn escape(&mut self, text: &mut String) {
        let Some(c) = self.bump() else { return };
        match c {
            'n' => text.push('\n'),
            't' => text.push('\t'),
            'r' => text.push('\r'),
            'a' => text.push('\u{7}'),
            'b' => text.push('\u{8}'),
            'f' => text.push('\u{c}'),
            'v' => text.push('\u{b}'),
            // Octal: up to three digits (`\0`, `\033`).
            '0'..='7' => {
                let mut code = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            code = code * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                text.extend(char::from_u32(code));
            }
            '\\' | '\'' | '"' => text.push(c),
            '\n' => {}
            'x' | 'u' | 'U' => {
                let n = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n)
                    .filter_map(|_| self.peek(0).filter(|h| h.is_ascii_hexdigit()).and_then(|_| self.bump()))
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).filter(|_| hex.len() == n) {
                    Some(ch) => text.push(ch),
                    None => self.error(self.span(), format!("invalid \\{c} escape")),
                }
            }
            other => {
                text.push('\\');
                text.push(other);
            }
        }
    }

    /// Reads `expr[:spec]}` after a `{`. Returns false if the string ended first.
    fn fstring_field(&mut self, parts: &mut Vec<FStrPart>, quote: char, triple: bool) -> bool {
        let span = self.span();
        let mut source = String::new();
        let mut depth = 0usize;
        let mut spec = None::<String>;
        let mut conversion = None;
        // `{x=}` / `{x = }`: the expression's text, `=` and spaces included, printed first.
        let mut self_documenting = None::<String>;
        loop {
            let Some(c) = self.peek(0) else { return false };
            let closes_string = c == quote && (!triple || (self.peek(1) == Some(quote) && self.peek(2) == Some(quote)));
            if closes_string || (c == '\n' && !triple) {
                return false;
            }
            let here = self.span();
            self.bump();
            match (c, &mut spec) {
                ('}', _) if depth == 0 => break,
                // `{x:{width}}`: reported, and its braces kept inside the spec so the field
                // still ends at its own `}` (not with a confusing "single '}'").
                ('{', Some(s)) => {
                    self.error(
                        here,
                        "f-string: nested fields in a format spec are not supported by the playground yet",
                    );
                    depth += 1;
                    s.push(c);
                }
                ('}', Some(s)) => {
                    depth -= 1;
                    s.push(c);
                }
                (_, Some(s)) => s.push(c),
                // `{x!r}` (not `{a != b}`): a conversion, then the end of the field or a spec.
                ('!', None) if depth == 0 && self.peek(0) != Some('=') => match (self.peek(0), self.peek(1)) {
                    (Some(c @ ('r' | 's' | 'a')), Some('}' | ':')) => {
                        self.bump();
                        conversion = Some(c);
                        if self.peek(0) == Some(':') {
                            self.bump();
                            spec = Some(String::new());
                        }
                    }
                    (c, _) => {
                        let c = c.map_or(String::new(), |c| format!(" '{c}'"));
                        self.error(
                            here,
                            format!("f-string: invalid conversion character{c}: expected 's', 'r', or 'a'"),
                        );
                        spec = Some(String::new());
                    }
                },
                // `{x=}` (not `{a == b}`, `{a <= b}`): the self-documenting form, spaces after the
                // `=` kept in its text as Python keeps them.
                ('=', None)
                    if depth == 0
                        && self_documenting.is_none()
                        && matches!(self.next_non_space(), Some('}' | ':' | '!'))
                        && !source.trim_end().ends_with(['=', '!', '<', '>']) =>
                {
                    let mut text = format!("{source}=");
                    while self.peek(0) == Some(' ') {
                        self.bump();
                        text.push(' ');
                    }
                    self_documenting = Some(text);
                }
                ('(' | '[' | '{', None) => {
                    depth += 1;
                    source.push(c);
                }
                (')' | ']' | '}', None) => {
                    depth = depth.saturating_sub(1);
                    source.push(c);
                }
                (':', None) if depth == 0 => spec = Some(String::new()),
                (_, None) => source.push(c),
            }
        }
        if source.trim().is_empty() {
            self.error(span, "f-string: empty expression not allowed");
        }
        if let Some(text) = self_documenting {
            parts.push(FStrPart::Text(text));
            // Python prints the value's repr, unless a conversion or a format spec is given.
            if conversion.is_none() && spec.as_deref().unwrap_or("").is_empty() {
                conversion = Some('r');
            }
        }
        parts.push(FStrPart::Field { source, span, spec: spec.unwrap_or_default(), conversion });
        true
    }

    /// The next character that is not a space.
    fn next_non_space(&self) -> Option<char> {
        (0..).map(|i| self.peek(i)).find(|c| *c != Some(' ')).flatten()
    }

    fn operator(&mut self, start: Span) {
        let Some(op) = OPERATORS.iter().find(|op| op.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c))) else {
            let c = self.bump().unwrap_or(' ');
            self.error(start, format!("invalid character '{c}'"));
            return;
        };
        for _ in 0..op.chars().count() {
            self.bump();
        }
        match *op {
            "(" | "[" | "{" => self.brackets.push((op.chars().next().unwrap_or('('), start)),
            ")" | "]" | "}" => {
                let want = match *op {
                    ")" => '(',
                    "]" => '[',
                    _ => '{',
                };
                match self.brackets.last() {
                    Some(&(open, _)) if open == want => {
                        self.brackets.pop();
                    }
                    Some(&(open, _)) => {
                        self.error(
                            start,
                            format!("closing parenthesis '{op}' does not match opening parenthesis '{open}'"),
                        );
                        self.brackets.pop();
                    }
                    None => self.error(start, format!("unmatched '{op}'")),
                }
            }
            _ => {}
        }
        self.push(Tok::Op(op), start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> String {
        let (tokens, errors) = tokenize(src, 0);
        assert!(errors.is_empty(), "{errors:?}");
        tokens
            .iter()
            .map(|t| match &t.tok {
                Tok::Name(n) => n.clone(),
                Tok::Keyword(k) => k.to_string(),
                Tok::Int(i) => i.to_string(),
                Tok::Float(f) => format!("{f:?}"),
                Tok::Imag(f) => format!("{f:?}j"),
                Tok::Str(s) => format!("{s:?}"),
                Tok::FStr(_) => "fstr".into(),
                Tok::Op(o) => o.to_string(),
                Tok::Newline => "NL".into(),
                Tok::Indent => "IN".into(),
                Tok::Dedent => "DE".into(),
                Tok::Eof => "EOF".into(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn indentation_and_brackets() {
        assert_eq!(
            kinds("if x:\n    y = (1,\n  2)\n\n    # c\nz **= .5e1\n"),
            "if x : NL IN y = ( 1 , 2 ) NL DE z **= 5.0 NL EOF"
        );
        assert_eq!(kinds("a = 1_000 + 1e-3 \\\n  + 'a\\'b'"), "a = 1000 + 0.001 + \"a'b\" NL EOF");
    }

    #[test]
    fn fstring_comparisons_are_not_conversions_or_specifiers() {
        let (_, errors) = tokenize("f'{a == b} {a != b} {a <= b} {a >= b} {x:>{w}} {x!r} {x=} {x!q}'\n", 0);
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            text,
            [
                "1:43: f-string: nested fields in a format spec are not supported by the playground yet",
                "1:61: f-string: invalid conversion character 'q': expected 's', 'r', or 'a'",
            ]
        );
    }

    #[test]
    fn unterminated_string_is_reported() {
        let (_, errors) = tokenize("x = 'abc\ny = 1\n", 0);
        assert_eq!(errors[0].to_string(), "1:5: unterminated string");
    }
}
