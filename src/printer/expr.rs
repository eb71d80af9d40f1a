//! C text of types, declarations, places and expressions, and the naming
//! scheme of the printed program (unique, readable, deterministic).

use crate::ir::{BinaryOp, Expr, FloatLiteral, LibraryFunction, Place, Ty, UnaryOp};
use crate::passes::{SeqThread, SequentialProgram};
use std::collections::BTreeSet;

/// Names of program entities in the printed C.
pub struct Names {
    structs: Vec<String>,
    plain_globals: Vec<String>,
}

impl Names {
    pub fn new(program: &SequentialProgram) -> Self {
        Names {
            structs: program
                .structs
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{}_s{i}", sanitize(&s.name)))
                .collect(),
            plain_globals: program
                .plain_globals
                .iter()
                .enumerate()
                .map(|(i, g)| format!("{}_g{i}", sanitize(&g.name)))
                .collect(),
        }
    }

    pub fn structure(&self, id: usize) -> String {
        self.structs
            .get(id)
            .cloned()
            .unwrap_or_else(|| format!("unknown_s{id}"))
    }

    pub fn plain_global(&self, id: usize) -> String {
        self.plain_globals
            .get(id)
            .cloned()
            .unwrap_or_else(|| format!("unknown_g{id}"))
    }

    /// `t1_x_3`: local 3 named `x` of thread slot 1.
    pub fn local(&self, slot: usize, id: usize, name: &str) -> String {
        format!("t{slot}_{}_{id}", sanitize(name))
    }

    pub fn thread_function(&self, thread: &SeqThread) -> String {
        format!("thread{}_{}", thread.slot, sanitize(&thread.function))
    }
}

/// A C identifier fragment made of `name`'s letters, digits and underscores.
pub fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("v{s}")
    } else {
        s
    }
}

/// The scalar C type of `ty` (pointers are location ids).
fn scalar_type(ty: &Ty) -> &'static str {
    match ty {
        Ty::Void => "void",
        Ty::Bool => "_Bool",
        Ty::Int { bits, signed: true } if *bits <= 8 => "signed char",
        Ty::Int {
            bits,
            signed: false,
        } if *bits <= 8 => "unsigned char",
        Ty::Int { bits, signed: true } if *bits <= 16 => "short",
        Ty::Int {
            bits,
            signed: false,
        } if *bits <= 16 => "unsigned short",
        Ty::Int { bits, signed: true } if *bits <= 32 => "int",
        Ty::Int {
            bits,
            signed: false,
        } if *bits <= 32 => "unsigned int",
        Ty::Int { signed: true, .. } => "long long",
        Ty::Int { signed: false, .. } => "unsigned long long",
        Ty::Float { bits } if *bits <= 32 => "float",
        Ty::Float { .. } => "double",
        Ty::Pointer(_) | Ty::ThreadHandle | Ty::FunctionPointer => "unsigned int",
        Ty::Array(..) | Ty::Struct(_) => "int",
    }
}

/// The struct held by value in a field of type `ty`, if any.
pub fn held_struct(ty: &Ty) -> Option<usize> {
    match ty {
        Ty::Struct(id) => Some(*id),
        Ty::Array(element, _) => held_struct(element),
        _ => None,
    }
}

/// `T name[n]...` for a variable or field.
pub fn declaration(ty: &Ty, name: &str, names: &Names) -> String {
    let mut suffix = String::new();
    let mut base = ty;
    while let Ty::Array(element, n) = base {
        suffix.push_str(&format!("[{}]", (*n).max(1)));
        base = element;
    }
    let base_text = match base {
        Ty::Struct(id) => format!("struct {}", names.structure(*id)),
        other => scalar_type(other).to_string(),
    };
    format!("{base_text} {name}{suffix}")
}

/// A C integer literal of `value`.
pub fn constant(value: i64) -> String {
    if value == i64::MIN {
        "(-9223372036854775807LL - 1)".into()
    } else if i32::try_from(value).is_ok() {
        if value < 0 {
            format!("({value})")
        } else {
            value.to_string()
        }
    } else if value < 0 {
        format!("({value}LL)")
    } else {
        format!("{value}LL")
    }
}

/// A C floating constant: the program's spelling, `f` for a `float`.
fn float_constant(literal: &FloatLiteral) -> String {
    let suffix = if literal.bits <= 32 { "f" } else { "" };
    format!("{}{suffix}", literal.spelling)
}

/// The bits of `value` read as a value of type `to`: a floating type and
/// the signed integer type of its width, either way round, through a
/// union (a compound literal, so that the expression stays one).
fn reinterpret(to: &Ty, value: &str) -> String {
    let (integer, floating) = match to {
        Ty::Float { bits } if *bits <= 32 => ("int", "float"),
        Ty::Float { .. } => ("long long", "double"),
        Ty::Int { bits, .. } if *bits <= 32 => ("int", "float"),
        _ => ("long long", "double"),
    };
    let (from, to) = if matches!(to, Ty::Float { .. }) {
        (integer, floating)
    } else {
        (floating, integer)
    };
    format!("((union {{ {from} from; {to} to; }}){{ .from = {value} }}).to")
}

/// A C string literal of `text`.
pub fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            _ => out.push('?'),
        }
    }
    out.push('"');
    out
}

/// The functions that the printed expressions call and the printed
/// program must declare, each `(name, C return type, C parameter list)`:
/// CBMC's `nondet_<type>` functions, and the math library functions whose
/// bodies CBMC's own library gives.
pub type Declarations = BTreeSet<(String, String, String)>;

/// `nondet_<type>` and its C return type.
fn nondet_function(ty: &Ty) -> (String, String) {
    let c = scalar_type(ty);
    (format!("nondet_{}", c.replace(' ', "_")), c.to_string())
}

/// The declaration of a math library function, as [`Declarations`] holds it.
fn library_declaration(function: &LibraryFunction) -> (String, String, String) {
    let c = if function.bits <= 32 {
        "float"
    } else {
        "double"
    };
    let parameters = vec![c; usize::from(function.arity)].join(", ");
    (function.name.to_string(), c.to_string(), parameters)
}

pub fn place(p: &Place, names: &Names, thread: &SeqThread, nondet: &mut Declarations) -> String {
    match p {
        Place::Local(id) => {
            let name = thread
                .locals
                .get(*id)
                .map(|l| l.name.as_str())
                .unwrap_or("unknown");
            names.local(thread.slot, *id, name)
        }
        Place::PlainGlobal(id) => names.plain_global(*id),
        Place::Index(base, index) => {
            format!(
                "{}[{}]",
                place(base, names, thread, nondet),
                expression(index, names, thread, nondet)
            )
        }
        Place::Field(base, field) => {
            format!("{}.{}", place(base, names, thread, nondet), sanitize(field))
        }
    }
}

pub fn expression(
    e: &Expr,
    names: &Names,
    thread: &SeqThread,
    nondet: &mut Declarations,
) -> String {
    match e {
        Expr::Const(v) => constant(*v),
        Expr::FloatConst(literal) => float_constant(literal),
        Expr::Load(p) => place(p, names, thread, nondet),
        // Resolved by instantiation; an unresolved address is the null location.
        Expr::ObjectAddress(_) => "0".into(),
        Expr::Unary(op, a) => {
            let op = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
            };
            format!("({op}{})", expression(a, names, thread, nondet))
        }
        Expr::Binary(op, a, b) => format!(
            "({} {} {})",
            expression(a, names, thread, nondet),
            binary_operator(*op),
            expression(b, names, thread, nondet)
        ),
        Expr::Conditional(c, a, b) => format!(
            "({} ? {} : {})",
            expression(c, names, thread, nondet),
            expression(a, names, thread, nondet),
            expression(b, names, thread, nondet)
        ),
        Expr::Cast(ty, a) => match ty {
            Ty::Array(..) | Ty::Struct(_) | Ty::Void => expression(a, names, thread, nondet),
            scalar => format!(
                "(({}){})",
                scalar_type(scalar),
                expression(a, names, thread, nondet)
            ),
        },
        Expr::Reinterpret(to, a) => reinterpret(to, &expression(a, names, thread, nondet)),
        Expr::Nondet(ty) => {
            let (function, c_type) = nondet_function(ty);
            nondet.insert((function.clone(), c_type, "void".to_string()));
            format!("{function}()")
        }
        Expr::LibraryCall(function, arguments) => {
            nondet.insert(library_declaration(function));
            let arguments: Vec<String> = arguments
                .iter()
                .map(|argument| expression(argument, names, thread, nondet))
                .collect();
            format!("{}({})", function.name, arguments.join(", "))
        }
        // The lazy pass replaces it; the slot it stands for otherwise.
        Expr::CurrentThread => constant(thread.slot as i64),
    }
}

fn binary_operator(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
        BinaryOp::LogicalAnd => "&&",
        BinaryOp::LogicalOr => "||",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
    }
}
