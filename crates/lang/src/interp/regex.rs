//! The engine under the `re` module (`crates/pylib/python/re.py`): Python patterns compiled by the
//! `regex` crate, cached per pattern and flags, matched on Python strings with positions in
//! characters, as Python counts them.
//!
//! Python's syntax is `regex`'s nearly everywhere (groups, named groups `(?P<name>…)`, classes,
//! inline flags, lazy quantifiers). What `regex` does not have — backreferences and look-around,
//! which need backtracking — is `re.error` with a message saying so; `\Z` is translated to
//! `regex`'s `\z`.

use super::value::Value;
use super::{type_err, Interp, R};
use std::collections::HashMap;
use std::rc::Rc;

/// Python's `re` flag bits.
const IGNORECASE: i64 = 2;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;
const VERBOSE: i64 = 64;

/// Compiled patterns by (pattern, flags).
#[derive(Default)]
pub struct Cache(HashMap<(String, i64), Rc<regex::Regex>>);

/// A pattern in `regex`'s syntax, or why it has no translation.
fn translate(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else { return Err("bad escape (end of pattern)".into()) };
                match next {
                    'Z' if !in_class => out.push_str("\\z"),
                    '1'..='9' if !in_class => {
                        return Err(format!(
                            "backreferences (\\{next}) are not supported by the playground's regular expressions"
                        ))
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` first in a class (after an optional `^`) is a literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '(' if !in_class && chars.peek() == Some(&'?') => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with("?=")
                    || rest.starts_with("?!")
                    || rest.starts_with("?<=")
                    || rest.starts_with("?<!")
                {
                    return Err(
                        "look-around assertions are not supported by the playground's regular expressions".into()
                    );
                }
                if rest.starts_with("?P=") {
                    return Err(
                        "backreferences ((?P=name)) are not supported by the playground's regular expressions".into()
                    );
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// Character positions of a string's byte offsets (and back), for non-ASCII strings.
struct Positions<'s> {
    text: &'s str,
    ascii: bool,
}

impl Positions<'_> {
    fn char_of(&self, byte: usize) -> usize {
        if self.ascii {
            byte
        } else {
            self.text[..byte].chars().count()
        }
    }

    fn byte_of(&self, char_index: usize) -> usize {
        if self.ascii {
            char_index.min(self.text.len())
        } else {
            self.text.char_indices().nth(char_index).map_or(self.text.len(), |(b, _)| b)
        }
    }
}

impl Interp<'_, '_> {
    fn regex(&mut self, pattern: &str, flags: i64) -> Result<Rc<regex::Regex>, String> {
        if let Some(r) = self.regexes.0.get(&(pattern.to_string(), flags)) {
            return Ok(r.clone());
        }
        let translated = translate(pattern)?;
        let compiled = regex::RegexBuilder::new(&translated)
            .case_insensitive(flags & IGNORECASE != 0)
            .multi_line(flags & MULTILINE != 0)
            .dot_matches_new_line(flags & DOTALL != 0)
            .ignore_whitespace(flags & VERBOSE != 0)
            .build()
            .map_err(|e| match e {
                regex::Error::Syntax(text) => text.lines().last().unwrap_or("bad pattern").trim().to_string(),
                other => other.to_string(),
            })?;
        let compiled = Rc::new(compiled);
        self.regexes.0.insert((pattern.to_string(), flags), compiled.clone());
        Ok(compiled)
    }

    /// `_playground.re_compile(pattern, flags)`: `(groups, {name: index})`, or the message
    /// of the `re.error` to raise (a string).
    pub(super) fn re_compile(&mut self, args: &[Value]) -> R<Value> {
        let [Value::Str(pattern), Value::Int(flags)] = args else {
            return type_err("re_compile(pattern, flags) takes a string and an int");
        };
        Ok(match self.regex(pattern, *flags) {
            Ok(r) => {
                let names = r
                    .capture_names()
                    .enumerate()
                    .filter_map(|(i, n)| n.map(|n| (Value::str(n), Value::Int(i as i64))))
                    .collect();
                let groupindex = Value::Dict(Rc::new(std::cell::RefCell::new(super::value::Dict { entries: names })));
                Value::tuple(vec![Value::Int(r.captures_len() as i64 - 1), groupindex])
            }
            Err(message) => Value::str(&message),
        })
    }

    /// `_playground.re_search(pattern, flags, string, pos, endpos, mode)`: the first match in
    /// `string[:endpos]` at or after `pos` (mode 0, `search`), at `pos` (1, `match`) or spanning
    /// `pos..endpos` (2, `fullmatch`), as one `(start, end)` per group (group 0 first, `None`
    /// for a group that did not take part); `None` where there is none.
    pub(super) fn re_search(&mut self, args: &[Value]) -> R<Value> {
        let [Value::Str(pattern), Value::Int(flags), Value::Str(text), Value::Int(pos), Value::Int(endpos), Value::Int(mode)] =
            args
        else {
            return type_err("re_search(pattern, flags, string, pos, endpos, mode) takes str, int, str, int, int, int");
        };
        let regex = match self.regex(pattern, *flags) {
            Ok(r) => r,
            Err(message) => return super::value_err(message),
        };
        let positions = Positions { text, ascii: text.is_ascii() };
        let end = positions.byte_of((*endpos).max(0) as usize);
        let start = positions.byte_of((*pos).max(0) as usize).min(end);
        let hay = &text[..end];
        let found = match *mode {
            0 => regex.captures_at(hay, start),
            _ => {
                // Anchored: a match must start at `start` (and for fullmatch end at `end`). The
                // leftmost match at or after `start` starts there when any does.
                let anchored = if *mode == 2 {
                    match self.regex(&format!("(?:{pattern})\\Z"), *flags) {
                        Ok(r) => r,
                        Err(message) => return super::value_err(message),
                    }
                } else {
                    regex.clone()
                };
                anchored.captures_at(hay, start).filter(|c| c.get(0).is_some_and(|m| m.start() == start))
            }
        };
        let Some(caps) = found else { return Ok(Value::None) };
        let spans = (0..caps.len())
            .map(|i| match caps.get(i) {
                Some(m) => Value::tuple(vec![
                    Value::Int(positions.char_of(m.start()) as i64),
                    Value::Int(positions.char_of(m.end()) as i64),
                ]),
                None => Value::None,
            })
            .collect();
        Ok(Value::list(spans))
    }
}
