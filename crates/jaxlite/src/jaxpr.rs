//! The Jaxpr: a typed, first-order program of primitive equations, printed as JAX prints it.

use crate::array::Aval;
use crate::prim::Primitive;
use std::collections::HashMap;
use std::fmt::{self, Write};

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

#[derive(Clone, Debug, PartialEq)]
pub struct Eqn {
    pub prim: Primitive,
    pub inputs: Vec<Atom>,
    pub outputs: Vec<Var>,
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

fn literal_text(l: &Literal) -> String {
    let value = if l.aval.dtype.is_float() {
        let mut s = format!("{}", l.value as f32);
        if !s.contains(['.', 'e', 'n', 'i']) {
            s.push_str(".0");
        }
        s
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names follow first appearance, so printing is stable whatever the variable ids are.
        let mut names: HashMap<Var, String> = HashMap::new();
        let mut name = |v: Var, names: &mut HashMap<Var, String>| -> String {
            let n = names.len();
            names.entry(v).or_insert_with(|| var_name(n)).clone()
        };
        let binder = |v: Var,
                      names: &mut HashMap<Var, String>,
                      name: &mut dyn FnMut(Var, &mut HashMap<Var, String>) -> String| {
            format!("{}:{}", name(v, names), self.aval(v).short())
        };
        let consts: Vec<String> = self.constvars.iter().map(|&v| binder(v, &mut names, &mut name)).collect();
        let ins: Vec<String> = self.invars.iter().map(|&v| binder(v, &mut names, &mut name)).collect();
        let mut lines = Vec::with_capacity(self.eqns.len());
        for eqn in &self.eqns {
            let inputs: Vec<String> = eqn
                .inputs
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => name(*v, &mut names),
                    Atom::Literal(l) => literal_text(l),
                })
                .collect();
            let outs: Vec<String> = eqn.outputs.iter().map(|&v| binder(v, &mut names, &mut name)).collect();
            lines.push(format!("{} = {} {}", outs.join(" "), eqn.prim, inputs.join(" ")));
        }
        let outs: Vec<String> = self
            .outvars
            .iter()
            .map(|a| match a {
                Atom::Var(v) => name(*v, &mut names),
                Atom::Literal(l) => literal_text(l),
            })
            .collect();
        let trailing = if outs.len() == 1 { "," } else { "" };
        let head = format!("{{ lambda {}; {}. let", consts.join(" "), ins.join(" "));
        let tail = format!("in ({}{trailing}) }}", outs.join(", "));
        // As JAX's pretty printer: on one line, equations separated by "; ", when that fits in
        // 80 columns; otherwise one equation per line.
        let one_line = format!("{head} {} {tail}", lines.join("; "));
        if one_line.chars().count() <= JAXPR_WIDTH {
            return f.write_str(&one_line);
        }
        let mut out = head + "\n";
        for line in &lines {
            writeln!(out, "    {line}")?;
        }
        write!(out, "  {tail}")?;
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::var_name;

    #[test]
    fn names_follow_jax() {
        assert_eq!(var_name(0), "a");
        assert_eq!(var_name(25), "z");
        assert_eq!(var_name(26), "ba");
        assert_eq!(var_name(27), "bb");
    }
}
