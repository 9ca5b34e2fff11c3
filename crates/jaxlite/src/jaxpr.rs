//! The Jaxpr: a typed, first-order program of primitive equations, printed as JAX prints it.

use crate::array::Aval;
use crate::prim::{JitFunction, Primitive};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A variable, unique within its Jaxpr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A scalar constant written inline in an equation (`2.0:f32[]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub value: f64,
    pub aval: Aval,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Atom {
    Var(Var),
    Literal(Literal),
}

#[derive(Clone, Debug)]
pub struct Eqn {
    pub prim: Primitive,
    pub inputs: Vec<Atom>,
    pub outputs: Vec<Var>,
    /// Where in the script the operation that staged it was written (JAX's `source_info`):
    /// an equation a transformation derived from another keeps that one's.
    pub source: Option<Rc<SourceInfo>>,
}

/// Equations are equal by what they compute; where they were written does not count.
impl PartialEq for Eqn {
    fn eq(&self, other: &Eqn) -> bool {
        self.prim == other.prim && self.inputs == other.inputs && self.outputs == other.outputs
    }
}

/// A place in the script, as JAX summarises one: the line and (0-based) column of the
/// expression being evaluated in the innermost frame of the script's own code, and the
/// qualified name of that frame's function (`<module>` at the top level).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceInfo {
    pub line: u32,
    pub column: u32,
    pub function: Rc<str>,
}

impl fmt::Display for SourceInfo {
    /// `<script>:10:9 (g)`, as JAX's `source_info_util.summarize` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<script>:{}:{} ({})", self.line, self.column, self.function)
    }
}

/// A Jaxpr with the types of all its variables. Constants captured from the enclosing Python
/// scope are `constvars`; a caller passes their values first, then the arguments.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Jaxpr {
    pub constvars: Vec<Var>,
    pub invars: Vec<Var>,
    pub eqns: Vec<Eqn>,
    pub outvars: Vec<Atom>,
    pub types: HashMap<Var, Aval>,
}

impl Jaxpr {
    pub fn aval(&self, var: Var) -> &Aval {
        &self.types[&var]
    }

    pub fn atom_aval<'a>(&'a self, atom: &'a Atom) -> &'a Aval {
        match atom {
            Atom::Var(v) => self.aval(*v),
            Atom::Literal(l) => &l.aval,
        }
    }

    /// The constvars and then the invars: the order in which a caller passes values.
    pub fn all_inputs(&self) -> impl Iterator<Item = Var> + '_ {
        self.constvars.iter().chain(&self.invars).copied()
    }
}

/// JAX's variable names: a, b, ..., z, ba, bb, ...
fn var_name(mut index: usize) -> String {
    let mut digits = vec![(b'a' + (index % 26) as u8) as char];
    index /= 26;
    while index > 0 {
        digits.push((b'a' + (index % 26) as u8) as char);
        index /= 26;
    }
    digits.iter().rev().collect()
}

/// As Python writes a float whose shortest round-trip digits are `digits` (Rust's `{}` or
/// `{:e}` of it): positional from 1e-4 up to 1e16 (`0.5`, `2.0`), scientific outside with a
/// signed two-digit exponent (`1e-06`, `1.5e+16`).
fn python_float(magnitude: f64, positional: String, scientific: String) -> String {
    if !magnitude.is_finite() || magnitude == 0.0 || (1e-4..1e16).contains(&magnitude) {
        let mut s = positional;
        if !s.contains(['.', 'n', 'i']) {
            s.push_str(".0");
        }
        return s;
    }
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let (sign, digits) = exponent.strip_prefix('-').map_or(('+', exponent), |d| ('-', d));
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// A float literal as JAX prints it: a weakly typed one is the Python number it came from
/// (the shortest digits that give the float32 back, here); a float32 one is that float32
/// widened to a Python float (`9.999999974752427e-07` for float32 1e-6).
fn float_literal(value: f64, weak: bool) -> String {
    let x = value as f32;
    if weak {
        // The Python number those digits write, which decides between the two notations.
        let digits = format!("{x}");
        python_float(digits.parse::<f64>().map_or(f64::NAN, f64::abs), digits, format!("{x:e}"))
    } else {
        let x = x as f64;
        python_float(x.abs(), format!("{x}"), format!("{x:e}"))
    }
}

fn literal_text(l: &Literal) -> String {
    let value = if l.aval.dtype.is_float() {
        float_literal(l.value, l.aval.weak_type)
    } else if l.aval.dtype == crate::DType::Bool {
        if l.value != 0.0 { "True" } else { "False" }.to_string()
    } else {
        format!("{}", l.value as i64)
    };
    format!("{value}:{}", l.aval.short())
}

/// The line width of JAX's jaxpr printer.
const JAXPR_WIDTH: usize = 80;

impl fmt::Display for Jaxpr {
    /// As JAX's `pp_toplevel_jaxpr`: a nested Jaxpr used twice, or holding more than 10
    /// equations, is printed once first, as `let name = { ... } in`, and named where it is used
    /// (the name is its `jit`'s or custom rule's, else `jaxpr`; a repeated name gets a number).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut printer = Printer::default();
        let shared = shared_jaxprs(self);
        printer.reserved = shared.iter().map(|(name, _)| name.clone()).collect();
        for (name, jaxpr) in &shared {
            // With names of its own: the top level's ids may repeat its ids.
            let text = printer.nested(&jaxpr.shown(), 0, "let  = ".len() + name.len());
            printer.shared.insert(jaxpr.key(), name.clone());
            writeln!(f, "let {name} = {text} in")?;
        }
        f.write_str(&printer.jaxpr(self, 0))
    }
}

/// A Jaxpr nested in an equation, as the printer shows it.
#[derive(Clone, Copy)]
enum Nested<'a> {
    Plain(&'a Jaxpr),
    /// A `jit`'s body, whose own constants print as its constvars.
    Jit(&'a JitFunction),
}

impl<'a> Nested<'a> {
    /// Identity: the same Jaxpr reached twice (a function traced once, called twice) is one.
    fn key(&self) -> *const Jaxpr {
        match self {
            Nested::Plain(j) => *j,
            Nested::Jit(function) => &function.body,
        }
    }

    /// The Jaxpr as printed.
    fn shown(self) -> std::borrow::Cow<'a, Jaxpr> {
        match self {
            Nested::Plain(j) => std::borrow::Cow::Borrowed(j),
            Nested::Jit(function) => std::borrow::Cow::Owned(jit_body(function)),
        }
    }

    fn eqns(self) -> &'a [Eqn] {
        match self {
            Nested::Plain(j) => &j.eqns,
            Nested::Jit(function) => &function.body.eqns,
        }
    }
}

/// The Jaxprs an equation holds, in JAX's parameter order, and the name it gives them.
fn nested_jaxprs(eqn: &Eqn) -> (Option<&str>, Vec<Nested<'_>>) {
    match &eqn.prim {
        Primitive::Jit { function } => (Some(&function.name), vec![Nested::Jit(function)]),
        Primitive::While { function } => (None, vec![Nested::Plain(&function.cond), Nested::Plain(&function.body)]),
        Primitive::Scan { function } => (None, vec![Nested::Plain(&function.body)]),
        Primitive::Remat { function } => (None, vec![Nested::Plain(&function.body)]),
        Primitive::Cond { function } => (None, function.branches.iter().map(Nested::Plain).collect()),
        Primitive::CustomJvpCall { function, .. } => (Some(&function.name), vec![Nested::Plain(&function.call)]),
        Primitive::CustomVjpCall { function } => (Some(&function.name), vec![Nested::Plain(&function.call)]),
        _ => (None, Vec::new()),
    }
}

/// The nested Jaxprs printed first and their names, as `pp_toplevel_jaxpr` chooses them:
/// counted over a breadth-first walk (a Jaxpr reached twice is walked twice), one with more
/// than 10 equations counting double.
fn shared_jaxprs(top: &Jaxpr) -> Vec<(String, Nested<'_>)> {
    // Each nested Jaxpr in order of first visit: its count and its name, if an equation named it.
    let mut counts: Vec<(Nested, usize, Option<String>)> = Vec::new();
    let mut queue = std::collections::VecDeque::new();
    fn children<'a>(eqns: &'a [Eqn], queue: &mut std::collections::VecDeque<(Nested<'a>, Option<String>)>) {
        for eqn in eqns {
            let (name, nested) = nested_jaxprs(eqn);
            for n in nested {
                queue.push_back((n, name.map(|s| s.trim_matches(['<', '>']).to_string())));
            }
        }
    }
    children(&top.eqns, &mut queue);
    while let Some((jaxpr, name)) = queue.pop_front() {
        let weight = if jaxpr.eqns().len() > 10 { 2 } else { 1 };
        match counts.iter_mut().find(|(j, ..)| j.key() == jaxpr.key()) {
            Some((_, count, known)) => {
                *count += weight;
                if known.is_none() {
                    *known = name;
                }
            }
            None => counts.push((jaxpr, weight, name)),
        }
        children(jaxpr.eqns(), &mut queue);
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut shared = Vec::new();
    for (jaxpr, count, name) in counts {
        if count == 1 {
            continue;
        }
        let name = name.unwrap_or_else(|| "jaxpr".to_string());
        // JAX's numbering: the second `f` is `f1`, itself counted as taken.
        let count = taken.entry(name.clone()).or_default();
        let seen = *count;
        *count += 1;
        let name = if seen > 0 {
            let numbered = format!("{name}{seen}");
            *taken.entry(numbered.clone()).or_default() += 1;
            numbered
        } else {
            name
        };
        shared.push((name, jaxpr));
    }
    shared
}

/// Prints Jaxprs as JAX does. Names follow first appearance, so printing is stable whatever
/// the variable ids are, and continue into nested Jaxprs (a `custom_jvp_call`'s, a `while`'s),
/// whose variables are their own (a nested Jaxpr is closed: it reads nothing of the one around
/// it, and its ids may repeat those).
#[derive(Default)]
struct Printer {
    names: HashMap<Var, String>,
    /// Names given so far, in every Jaxpr printed.
    count: usize,
    /// Variables some equation or output reads; JAX prints an equation's other outputs as `_`
    /// (and gives them no name), except in a nested `jit`'s body, which it prints as
    /// traced (`name_unused`).
    used: std::collections::HashSet<Var>,
    name_unused: bool,
    /// The nested Jaxprs printed first (see `shared_jaxprs`), by identity, with their names,
    /// which no variable takes.
    shared: HashMap<*const Jaxpr, String>,
    reserved: std::collections::HashSet<String>,
}

impl Printer {
    fn name(&mut self, v: Var) -> String {
        if let Some(name) = self.names.get(&v) {
            return name.clone();
        }
        let mut name = var_name(self.count);
        self.count += 1;
        while self.reserved.contains(&name) {
            name = var_name(self.count);
            self.count += 1;
        }
        self.names.insert(v, name.clone());
        name
    }

    /// A nested Jaxpr, printed with names of its own (see `Printer`).
    fn nested(&mut self, jaxpr: &Jaxpr, indent: usize, prefix: usize) -> String {
        if let Some(name) = self.shared.get(&(jaxpr as *const Jaxpr)) {
            return name.clone();
        }
        let names = std::mem::take(&mut self.names);
        let used = std::mem::take(&mut self.used);
        let name_unused = std::mem::replace(&mut self.name_unused, false);
        let text = self.jaxpr_after(jaxpr, indent, prefix);
        self.names = names;
        self.used = used;
        self.name_unused = name_unused;
        text
    }

    /// The body of a nested `jit`, printed as JAX prints it: an input takes the name of the
    /// variable passed to it (a literal's, or a variable's passed again, gets a new name), and
    /// an output the body computes the name of the equation's output, so the body reads as the
    /// code around it; its other variables get new names, and none prints as `_` (as JAX
    /// prints a jitted function's body).
    fn called(&mut self, function: &JitFunction, operands: &[Atom], outputs: &[Var], indent: usize) -> String {
        if let Some(name) = self.shared.get(&(&function.body as *const Jaxpr)) {
            return name.clone();
        }
        let shown = jit_body(function);
        let body = &shown;
        let mut names = HashMap::new();
        let mut passed = std::collections::HashSet::new();
        for (&v, a) in body.invars.iter().zip(&operands[function.consts..]) {
            // A variable passed twice names the first input only.
            if let Atom::Var(outer) = a {
                if let (Some(name), true) = (self.names.get(outer), passed.insert(*outer)) {
                    names.entry(v).or_insert_with(|| name.clone());
                }
            }
        }
        for (a, outer) in body.outvars.iter().zip(outputs) {
            if let (Atom::Var(v), Some(name)) = (a, self.names.get(outer)) {
                names.entry(*v).or_insert_with(|| name.clone());
            }
        }
        let outer_names = std::mem::replace(&mut self.names, names);
        let used = std::mem::take(&mut self.used);
        let name_unused = std::mem::replace(&mut self.name_unused, true);
        let text = self.jaxpr_after(body, indent, "jaxpr=".len());
        self.names = outer_names;
        self.used = used;
        self.name_unused = name_unused;
        text
    }

    fn binder(&mut self, jaxpr: &Jaxpr, v: Var) -> String {
        format!("{}:{}", self.name(v), jaxpr.aval(v).short())
    }

    fn atom(&mut self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.name(*v),
            Atom::Literal(l) => literal_text(l),
        }
    }

    /// `jaxpr` with its equations at `indent + 4` columns when it does not fit on one line
    /// (JAX's pretty printer, 80 columns, counting the `prefix` that precedes it).
    fn jaxpr(&mut self, jaxpr: &Jaxpr, indent: usize) -> String {
        self.jaxpr_after(jaxpr, indent, 0)
    }

    fn jaxpr_after(&mut self, jaxpr: &Jaxpr, indent: usize, prefix: usize) -> String {
        let reads = jaxpr.eqns.iter().flat_map(|e| e.inputs.iter()).chain(&jaxpr.outvars);
        self.used.extend(reads.filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Literal(_) => None,
        }));
        let inside = inside_jits(jaxpr);
        let consts: Vec<String> =
            jaxpr.constvars.iter().filter(|v| !inside.contains(v)).map(|&v| self.binder(jaxpr, v)).collect();
        let ins: Vec<String> = jaxpr.invars.iter().map(|&v| self.binder(jaxpr, v)).collect();
        let lines: Vec<String> = jaxpr.eqns.iter().map(|eqn| self.eqn(jaxpr, eqn, indent + 4)).collect();
        let outs: Vec<String> = jaxpr.outvars.iter().map(|a| self.atom(a)).collect();
        let trailing = if outs.len() == 1 { "," } else { "" };
        let flat_head = format!("{{ lambda {}; {}. let", consts.join(" "), ins.join(" "));
        let tail = format!("in ({}{trailing}) }}", outs.join(", "));
        let one_line = format!("{flat_head} {} {tail}", lines.join("; "));
        if indent + prefix + one_line.chars().count() <= JAXPR_WIDTH && !one_line.contains('\n') {
            return one_line;
        }
        // Broken over lines, the binder lists fill theirs (continued four columns in).
        let mut head = "{ lambda ".to_string();
        let column = indent + prefix + head.len();
        let (text, column) = fill(&consts, "", column, indent + 4);
        head.push_str(&text);
        head.push_str("; ");
        let (text, _) = fill(&ins, "", column + 2, indent + 4);
        head.push_str(&text);
        head.push_str(". let");
        let (outs, _) = fill(&outs, ",", indent + 2 + "in (".len(), indent + 4);
        let tail = format!("in ({outs}{trailing}) }}");
        let mut out = head + "\n";
        for line in &lines {
            out.push_str(&" ".repeat(indent + 4));
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&" ".repeat(indent + 2));
        out.push_str(&tail);
        out
    }

    /// One equation, without its leading indentation (`indent`, which nested lines follow).
    fn eqn(&mut self, jaxpr: &Jaxpr, eqn: &Eqn, indent: usize) -> String {
        // JAX names the outputs a `jit` body computes first, then those it passes through.
        if let Primitive::Jit { function } = &eqn.prim {
            let body = &function.body;
            let computed: std::collections::HashSet<Var> =
                body.eqns.iter().flat_map(|e| e.outputs.iter().copied()).collect();
            for (a, &v) in body.outvars.iter().zip(&eqn.outputs) {
                if matches!(a, Atom::Var(inner) if computed.contains(inner))
                    && (self.used.contains(&v) || self.name_unused)
                {
                    self.name(v);
                }
            }
        }
        let outs: Vec<String> = eqn
            .outputs
            .iter()
            .map(|&v| {
                if self.used.contains(&v) || self.name_unused {
                    self.binder(jaxpr, v)
                } else {
                    format!("_:{}", jaxpr.aval(v).short())
                }
            })
            .collect();
        let name = eqn.prim.name();
        // A custom derivative's call prints the Jaxpr it calls among its parameters, always one
        // parameter per line (as JAX prints it).
        let call = |printer: &mut Printer, jaxpr: &Jaxpr| printer.nested(jaxpr, indent + 2, "call_jaxpr=".len());
        let (params, broken) = match &eqn.prim {
            Primitive::CustomJvpCall { function, .. } => (
                vec![
                    ("name", function.name.clone()),
                    ("call_jaxpr", call(self, &function.call)),
                    ("jvp", function.rule_name.clone()),
                    ("symbolic_zeros", "False".to_string()),
                ],
                true,
            ),
            Primitive::CustomVjpCall { function } => (
                vec![
                    ("name", function.name.clone()),
                    ("bwd", function.bwd_name.clone()),
                    ("call_jaxpr", call(self, &function.call)),
                    ("fwd", function.fwd_name.clone()),
                    ("symbolic_zeros", "False".to_string()),
                ],
                true,
            ),
            Primitive::While { function } => {
                let body = self.nested(&function.body, indent + 2, "body_jaxpr=".len());
                let cond = self.nested(&function.cond, indent + 2, "cond_jaxpr=".len());
                (
                    vec![
                        ("body_jaxpr", body),
                        ("body_nconsts", function.body_consts.to_string()),
                        ("cond_jaxpr", cond),
                        ("cond_nconsts", function.cond_consts.to_string()),
                    ],
                    true,
                )
            }
            Primitive::Remat { function } => {
                let mut params = eqn.prim.params();
                params.insert(1, ("jaxpr", self.nested(&function.body, indent + 2, "jaxpr=".len())));
                (params, true)
            }
            Primitive::Scan { function } => {
                let mut params = vec![("jaxpr", self.nested(&function.body, indent + 2, "jaxpr=".len()))];
                params.extend(eqn.prim.params());
                (params, true)
            }
            // The branches one per line, inside parentheses on lines of their own.
            Primitive::Cond { function } => {
                let pad = " ".repeat(indent + 4);
                let mut text = "(\n".to_string();
                for branch in &function.branches {
                    text.push_str(&pad);
                    text.push_str(&self.nested(branch, indent + 4, 0));
                    text.push('\n');
                }
                text.push_str(&" ".repeat(indent + 2));
                text.push(')');
                (vec![("branches", text)], true)
            }
            Primitive::Gather => {
                let (operand, indices) = (jaxpr.atom_aval(&eqn.inputs[0]), jaxpr.atom_aval(&eqn.inputs[1]));
                let mut params =
                    vec![("dimension_numbers", crate::prim::gather_dimension_numbers(indices.rank(), operand.rank()))];
                params.extend(eqn.prim.params());
                params.push(("slice_sizes", crate::prim::gather_slice_sizes(&operand.shape)));
                params.push(("unique_indices", "False".to_string()));
                (params, false)
            }
            Primitive::Scatter { combine, axes } => {
                let operand = jaxpr.atom_aval(&eqn.inputs[0]);
                let mut params =
                    vec![("dimension_numbers", crate::prim::scatter_dimension_numbers(axes, operand.rank()))];
                params.extend(eqn.prim.params());
                let update = match crate::prim::scatter_update_jaxpr(*combine, operand.dtype) {
                    Some(j) => self.nested(&j, indent + 2, "update_jaxpr=".len()),
                    None => "None".to_string(),
                };
                params.push(("update_jaxpr", update));
                (params, false)
            }
            Primitive::Jit { function } => {
                let body = self.called(function, &eqn.inputs, &eqn.outputs, indent + 2);
                (vec![("name", function.name.clone()), ("jaxpr", body)], false)
            }
            prim => (prim.params(), false),
        };
        // JAX's pretty printer: the parameters in brackets on the line when they fit in 80
        // columns from where they start, else one per line, two columns in.
        let pairs: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let flat = format!("[{}]", pairs.join(" "));
        let (lhs, lhs_end) = fill(&outs, "", indent, indent + 2);
        let start = if outs.is_empty() { indent } else { lhs_end + " = ".len() } + name.len();
        let prim = if params.is_empty() {
            name.to_string()
        } else if !broken && start + flat.chars().count() <= JAXPR_WIDTH {
            format!("{name}{flat}")
        } else {
            let pad = " ".repeat(indent + 2);
            let lines: Vec<String> = pairs.iter().map(|pair| format!("{pad}{pair}\n")).collect();
            format!("{name}[\n{}{}]", lines.concat(), " ".repeat(indent))
        };
        // A `jit`'s own constants are not its operands to JAX (see `JitFunction`).
        let skipped = match &eqn.prim {
            Primitive::Jit { function } => function.consts,
            _ => 0,
        };
        let inputs: Vec<String> = eqn.inputs[skipped..].iter().map(|a| self.atom(a)).collect();
        let prim_end = match prim.rfind('\n') {
            Some(newline) => prim.len() - newline - 1,
            None => start - name.len() + prim.chars().count(),
        };
        let (inputs, _) = fill(&inputs, "", prim_end + 1, indent + 2);
        // An equation with no outputs (a debug callback) prints as JAX's: no binders, no `=`.
        if outs.is_empty() {
            return format!("{prim} {inputs}");
        }
        format!("{lhs} = {prim} {inputs}")
    }
}

/// A `jit`'s body as printed: the function's own constants are its constvars, with names of
/// their own.
fn jit_body(function: &JitFunction) -> Jaxpr {
    let mut shown = function.body.clone();
    shown.constvars = shown.invars.drain(..function.consts.min(shown.invars.len())).collect();
    shown
}

/// A list of variables (binders or operands) from `column`, as JAX's printer lays it out: on
/// the line when the whole list fits in 80 columns, else filling each line (a separator breaks
/// only where the line is already full) and continuing at column `continued`. Returns the text
/// and the column where it ends.
fn fill(items: &[String], separator: &str, column: usize, continued: usize) -> (String, usize) {
    let width = |s: &str| s.chars().count();
    let flat = items.join(&format!("{separator} "));
    let end = column + width(&flat);
    if end <= JAXPR_WIDTH {
        return (flat, end);
    }
    let mut out = String::new();
    let mut column = column;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
            column += width(separator);
            if column < JAXPR_WIDTH {
                out.push(' ');
                column += 1;
            } else {
                out.push('\n');
                out.push_str(&" ".repeat(continued));
                column = continued;
            }
        }
        out.push_str(item);
        column += width(item);
    }
    (out, column)
}

/// The constvars of `jaxpr` that only nested `jit`s read, as their own constants: JAX keeps
/// those inside the calls, so they are not the Jaxpr's (see `JitFunction`).
fn inside_jits(jaxpr: &Jaxpr) -> std::collections::HashSet<Var> {
    let mut elsewhere = std::collections::HashSet::new();
    let mut inside = std::collections::HashSet::new();
    for eqn in &jaxpr.eqns {
        let own = match &eqn.prim {
            Primitive::Jit { function } => function.consts,
            _ => 0,
        };
        for (i, a) in eqn.inputs.iter().enumerate() {
            if let Atom::Var(v) = a {
                if i < own { &mut inside } else { &mut elsewhere }.insert(*v);
            }
        }
    }
    elsewhere.extend(jaxpr.outvars.iter().filter_map(|a| match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }));
    jaxpr.constvars.iter().copied().filter(|v| inside.contains(v) && !elsewhere.contains(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::{float_literal, var_name};

    #[test]
    fn literals_print_as_python_floats() {
        let weak = |x| float_literal(x, true);
        assert_eq!(weak(1e-6), "1e-06");
        assert_eq!(weak(1.5e-5), "1.5e-05");
        assert_eq!(weak(1e16), "1e+16");
        assert_eq!(weak(0.0001), "0.0001");
        assert_eq!(weak(2.0), "2.0");
        assert_eq!(weak(-0.5), "-0.5");
        assert_eq!(weak(0.1), "0.1");
        assert_eq!(weak(f64::INFINITY), "inf");
        // What JAX prints for a float32 literal: the float32 as a Python float.
        assert_eq!(float_literal(1e-6, false), "9.999999974752427e-07");
        assert_eq!(float_literal(0.1, false), "0.10000000149011612");
        assert_eq!(float_literal(2.0, false), "2.0");
        assert_eq!(float_literal(-0.5, false), "-0.5");
    }

    #[test]
    fn names_follow_jax() {
        assert_eq!(var_name(0), "a");
        assert_eq!(var_name(25), "z");
        assert_eq!(var_name(26), "ba");
        assert_eq!(var_name(27), "bb");
    }
}
