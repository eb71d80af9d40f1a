//! herd7's C litmus tests (`TEST.litmus`) as pthreads C programs: the
//! init block becomes globals, each thread `Pn(int *x, ...)` a function
//! taking pointers to them (its body kept as written, under `#line`
//! directives that point into the `.litmus` file, the Linux-kernel
//! primitives defined as macros over lazysma's atomics and fences), and the
//! final condition an `assert` in `main` after every thread is joined, over
//! the shared locations and the registers each thread copies into globals
//! (`__litmus_P0_r0`) as it returns. `exists P` and `~exists P` become
//! `assert(!(P))` (a violation: P is reachable), `forall P` `assert(P)`.
//! What the dialect has beyond this is refused with its place in the file.

use crate::diagnostics::{Diagnostic, Severity};
use std::fmt::Write as _;
use std::path::Path;

/// Whether `path` names a herd C litmus test.
pub fn is_litmus(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == "litmus")
}

/// The pthreads C program of the litmus test `text` read from `path`, or
/// the reason it is refused, located in the `.litmus` file.
pub fn to_c(text: &str, path: &Path) -> Result<String, Box<Diagnostic>> {
    let test = parse(text).map_err(|refusal| Box::new(refusal.diagnostic(text, path)))?;
    Ok(emit(&test, text, path))
}

/// A construct outside the supported dialect, at a byte offset.
#[derive(Debug)]
struct Refusal {
    offset: usize,
    length: usize,
    message: String,
    label: String,
}

impl Refusal {
    fn at(offset: usize, length: usize, message: impl Into<String>, label: &str) -> Refusal {
        Refusal {
            offset,
            length: length.max(1),
            message: message.into(),
            label: label.to_string(),
        }
    }

    fn diagnostic(self, text: &str, path: &Path) -> Diagnostic {
        let (line, column) = line_and_column(text, self.offset);
        Diagnostic {
            message: format!("herd C litmus test: {}", self.message),
            file: path.to_path_buf(),
            line,
            column,
            length: u32::try_from(self.length).unwrap_or(1),
            label: self.label,
            help: Some(
                "lazysma reads herd's C dialect: the init block, threads P0, P1, ... over \
                 shared locations, READ_ONCE/WRITE_ONCE, smp_mb/wmb/rmb, \
                 smp_store_release/smp_load_acquire, xchg, cmpxchg, C11 atomics, and an \
                 exists/~exists/forall condition (see docs/supported-c.md)"
                    .to_string(),
            ),
            severity: Severity::Error,
        }
    }
}

type Parsed<T> = Result<T, Refusal>;

/// 1-based line and column (in characters) of a byte offset.
fn line_and_column(text: &str, offset: usize) -> (u32, u32) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// A shared location of the test.
#[derive(Debug, Clone)]
struct Location {
    name: String,
    /// Its C type (`int`, `atomic_int`, `int *`).
    ctype: String,
    /// Its C initialiser (`0`, `&x`).
    initial: String,
}

/// A thread `Pn(params) { body }`.
#[derive(Debug)]
struct Thread {
    number: usize,
    /// (pointee type, name) of each parameter.
    parameters: Vec<(String, String)>,
    /// Byte offset of the body's `{`.
    body_start: usize,
    /// The body between its braces, registers initialised to 0.
    body: String,
    /// Registers declared at the body's top level: (name, type, pointer).
    registers: Vec<(String, String, bool)>,
}

/// What the final condition claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Debug)]
struct Condition {
    quantifier: Quantifier,
    offset: usize,
    /// The proposition as a C expression.
    proposition: String,
    /// (thread, register) pairs the proposition reads.
    registers: Vec<(usize, String)>,
}

#[derive(Debug)]
struct LitmusTest {
    name: String,
    locations: Vec<Location>,
    threads: Vec<Thread>,
    condition: Condition,
}

/// A cursor over the text outside thread bodies, where herd's `(* *)`
/// comments and C's comments are white space.
struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Cursor<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    fn skip_trivia(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            let skipped = if trimmed.starts_with("(*") {
                comment_end(trimmed, "(*", "*)")
            } else if trimmed.starts_with("/*") {
                comment_end(trimmed, "/*", "*/")
            } else if trimmed.starts_with("//") {
                Some(trimmed.find('\n').unwrap_or(trimmed.len()))
            } else {
                None
            };
            match skipped {
                Some(length) => self.at += length,
                None => return,
            }
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_trivia();
        if self.rest().starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Option<(usize, &'t str)> {
        self.skip_trivia();
        let rest = self.rest();
        let length = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (length > 0).then(|| {
            let start = self.at;
            self.at += length;
            (start, &rest[..length])
        })
    }

    fn expect(&mut self, token: &str, what: &str) -> Parsed<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn unexpected(&mut self, what: &str) -> Refusal {
        self.skip_trivia();
        let found: String = self
            .rest()
            .chars()
            .take_while(|c| !c.is_whitespace())
            .take(20)
            .collect();
        if found.is_empty() {
            Refusal::at(self.at, 1, format!("expected {what}"), "the file ends here")
        } else {
            Refusal::at(
                self.at,
                found.chars().count(),
                format!("expected {what}, found `{found}`"),
                "not understood here",
            )
        }
    }
}

/// Length of a (nestable, for herd's) comment opening `text`, or all of it.
fn comment_end(text: &str, open: &str, close: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        if rest.starts_with(open) {
            depth += 1;
            at += open.len();
        } else if rest.starts_with(close) {
            depth -= 1;
            at += close.len();
            if depth == 0 || open == "/*" {
                return Some(at);
            }
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    Some(text.len())
}

fn parse(text: &str) -> Parsed<LitmusTest> {
    let mut cursor = Cursor { text, at: 0 };
    let name = header(&mut cursor)?;
    let mut locations = Vec::new();
    cursor.skip_trivia();
    if cursor.rest().starts_with('{') {
        locations = init_block(&mut cursor)?;
    }
    let mut threads = Vec::new();
    loop {
        cursor.skip_trivia();
        let rest = cursor.rest();
        let named_thread = rest.strip_prefix("void").map_or(rest, str::trim_start);
        if !(named_thread.starts_with('P')
            && named_thread[1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            break;
        }
        threads.push(thread(&mut cursor, threads.len(), &mut locations)?);
    }
    if threads.is_empty() {
        return Err(cursor.unexpected("a thread `P0(...) { ... }`"));
    }
    let condition = final_condition(&mut cursor, &locations, &threads)?;
    for (number, register) in &condition.registers {
        register_of(&threads, *number, register, condition.offset)?;
    }
    Ok(LitmusTest {
        name,
        locations,
        threads,
        condition,
    })
}

/// `C NAME` and an optional quoted description.
fn header(cursor: &mut Cursor) -> Parsed<String> {
    let Some((start, architecture)) = cursor.word() else {
        return Err(cursor.unexpected("`C NAME` on the first line"));
    };
    if architecture != "C" {
        return Err(Refusal::at(
            start,
            architecture.len(),
            format!("a litmus test for `{architecture}`, not for C"),
            "lazysma reads herd's C litmus tests only",
        ));
    }
    let rest = cursor.rest();
    let line = rest.find('\n').unwrap_or(rest.len());
    let name = rest[..line].trim().to_string();
    cursor.at += line;
    cursor.skip_trivia();
    if cursor.rest().starts_with('"') {
        let closing = cursor.rest()[1..]
            .find('"')
            .map_or(cursor.rest().len(), |i| i + 2);
        cursor.at += closing;
    }
    Ok(name)
}

/// The init block `{ x = 1; int y; int *p = &x; }`.
fn init_block(cursor: &mut Cursor) -> Parsed<Vec<Location>> {
    cursor.expect("{", "`{`")?;
    let mut locations: Vec<Location> = Vec::new();
    loop {
        if cursor.eat("}") {
            return Ok(locations);
        }
        cursor.skip_trivia();
        let start = cursor.at;
        let rest = cursor.rest();
        let end = rest.find([';', '}']).unwrap_or(rest.len());
        if end == rest.len() {
            return Err(cursor.unexpected("`}` closing the init block"));
        }
        let item = &rest[..end];
        cursor.at += end;
        cursor.eat(";");
        if !item.trim().is_empty() {
            let location = init_item(item.trim_end(), start, &locations)?;
            locations.retain(|l| l.name != location.name);
            locations.push(location);
        }
    }
}

/// One item of the init block, at byte `start`.
fn init_item(item: &str, start: usize, earlier: &[Location]) -> Parsed<Location> {
    let refuse = |message: String, label: &str| Refusal::at(start, item.len(), message, label);
    if item.contains(':') {
        return Err(refuse(
            format!("a register's initial value (`{item}`)"),
            "registers start at 0 here",
        ));
    }
    let (declaration, value) = match item.split_once('=') {
        Some((declaration, value)) => (declaration.trim(), Some(value.trim())),
        None => (item.trim(), None),
    };
    let declaration = declaration
        .strip_prefix('[')
        .and_then(|d| d.strip_suffix(']'))
        .unwrap_or(declaration)
        .trim();
    let name_start = last_word_start(declaration);
    let name = &declaration[name_start..];
    let ctype = declaration[..name_start].trim();
    if !is_identifier(name) {
        return Err(refuse(
            format!("`{item}` is not a location's initialisation"),
            "expected `x = 1`, `int x = 1` or `int *p = &x`",
        ));
    }
    let pointer = ctype.ends_with('*');
    let ctype = if ctype.is_empty() { "int" } else { ctype };
    check_type(ctype.trim_end_matches('*').trim(), start, item.len())?;
    let initial = match value {
        None => "0".to_string(),
        Some(value) if !pointer && integer(value).is_some() => value.to_string(),
        Some(value) if pointer && value.starts_with('&') => {
            let target = value[1..].trim();
            if !earlier.iter().any(|l| l.name == target) {
                return Err(refuse(
                    format!("`{name}` points to `{target}`, not a location initialised before it"),
                    "a pointer's target must be initialised earlier in the block",
                ));
            }
            format!("&{target}")
        }
        Some(value) => {
            return Err(refuse(
                format!("the initial value `{value}` of `{name}`"),
                "lazysma takes integers, and `&x` for a location declared a pointer",
            ));
        }
    };
    Ok(Location {
        name: name.to_string(),
        ctype: ctype.to_string(),
        initial,
    })
}

/// The integer a herd value spells (`1`, `-2`, `0x10`).
fn integer(value: &str) -> Option<i64> {
    let (negative, digits) = match value.strip_prefix('-') {
        Some(digits) => (true, digits.trim()),
        None => (false, value),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i64>().ok()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The byte offset of the identifier ending `text`.
fn last_word_start(text: &str) -> usize {
    text.char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

fn is_identifier(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The words a location's or parameter's type may use.
const TYPE_WORDS: &[&str] = &[
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "const",
    "volatile",
    "_Atomic",
    "atomic_int",
    "atomic_uint",
    "atomic_long",
    "intptr_t",
    "uintptr_t",
];

/// Refuses a type outside [`TYPE_WORDS`] (`spinlock_t`, `atomic_t`, `__int128`).
fn check_type(ctype: &str, start: usize, length: usize) -> Parsed<()> {
    for word in ctype.split(|c: char| c.is_whitespace() || c == '*') {
        if !word.is_empty() && !TYPE_WORDS.contains(&word) {
            return Err(Refusal::at(
                start,
                length,
                format!("the type `{word}` is not supported"),
                "lazysma takes integer and atomic integer locations and pointers to them",
            ));
        }
    }
    Ok(())
}

/// One thread `Pn(params) { body }`; its parameters name locations,
/// declared in `locations` when the init block has not.
fn thread(cursor: &mut Cursor, expected: usize, locations: &mut Vec<Location>) -> Parsed<Thread> {
    cursor.eat("void");
    let Some((start, name)) = cursor.word() else {
        return Err(cursor.unexpected("a thread"));
    };
    if name != format!("P{expected}") {
        return Err(Refusal::at(
            start,
            name.len(),
            format!("the thread `{name}` is not numbered in order (expected P{expected})"),
            "threads are P0, P1, ... in order",
        ));
    }
    cursor.expect("(", "`(` opening the thread's parameters")?;
    let rest = cursor.rest();
    let close = rest.find(')').ok_or_else(|| cursor.unexpected("`)`"))?;
    let list_start = cursor.at;
    let list = &rest[..close];
    cursor.at += close + 1;
    let mut parameters = Vec::new();
    let mut offset = list_start;
    for parameter in list.split(',') {
        let here = offset + (parameter.len() - parameter.trim_start().len());
        offset += parameter.len() + 1;
        if parameter.trim().is_empty() {
            continue;
        }
        parameters.push(thread_parameter(parameter.trim(), here, locations)?);
    }
    cursor.skip_trivia();
    if !cursor.rest().starts_with('{') {
        return Err(cursor.unexpected("`{` opening the thread's body"));
    }
    let body_start = cursor.at;
    let length = body_length(cursor.rest())
        .ok_or_else(|| Refusal::at(body_start, 1, "the body is not closed", "this `{`"))?;
    let inside = &cursor.rest()[1..length - 1];
    cursor.at += length;
    check_calls(inside, body_start + 1)?;
    let (body, registers) = initialised_registers(inside);
    Ok(Thread {
        number: expected,
        parameters,
        body_start,
        body,
        registers,
    })
}

/// A parameter `int *x`: (pointee type, location name).
fn thread_parameter(
    parameter: &str,
    start: usize,
    locations: &mut Vec<Location>,
) -> Parsed<(String, String)> {
    let name_start = last_word_start(parameter);
    let name = &parameter[name_start..];
    let ctype = parameter[..name_start].trim();
    let Some(pointee) = ctype.strip_suffix('*') else {
        return Err(Refusal::at(
            start,
            parameter.len(),
            format!("the parameter `{parameter}` is not a pointer to a location"),
            "a thread's parameters are pointers to shared locations",
        ));
    };
    let pointee = pointee.trim();
    check_type(pointee, start, parameter.len())?;
    if !is_identifier(name) {
        return Err(Refusal::at(
            start,
            parameter.len(),
            format!("the parameter `{parameter}` has no name"),
            "expected `int *x`",
        ));
    }
    if !locations.iter().any(|l| l.name == name) {
        let plain = pointee
            .split_whitespace()
            .filter(|w| *w != "const" && *w != "volatile")
            .collect::<Vec<_>>()
            .join(" ");
        locations.push(Location {
            name: name.to_string(),
            ctype: if plain.is_empty() {
                "int".into()
            } else {
                plain
            },
            initial: "0".to_string(),
        });
    }
    Ok((pointee.to_string(), name.to_string()))
}

/// Length of the `{ ... }` opening `text`, braces matched outside C
/// comments and literals.
fn body_length(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at += text[at..].find('\n').unwrap_or(text.len() - at);
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at += text[at + 2..].find("*/").map_or(text.len() - at, |i| i + 4);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The Linux-kernel primitives lazysma maps, as macros over its fences and
/// atomics (see docs/supported-c.md, "herd C litmus tests").
const KERNEL_MACROS: &str = "\
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))
#define smp_mb() __sync_synchronize()
#define smp_wmb() atomic_thread_fence(memory_order_release)
#define smp_rmb() atomic_thread_fence(memory_order_acquire)
#define smp_mb__before_atomic() __sync_synchronize()
#define smp_mb__after_atomic() __sync_synchronize()
#define smp_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define smp_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define xchg(p, v) atomic_exchange((p), (v))
#define xchg_relaxed(p, v) atomic_exchange((p), (v))
#define xchg_acquire(p, v) atomic_exchange((p), (v))
#define xchg_release(p, v) atomic_exchange((p), (v))
#define cmpxchg(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define cmpxchg_relaxed(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define cmpxchg_acquire(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
#define cmpxchg_release(p, o, n) __sync_val_compare_and_swap((p), (o), (n))
";

/// The calls a thread body may make: the macros above, C11's atomics,
/// and C's keywords before a parenthesis.
const ALLOWED_CALLS: &[&str] = &[
    "READ_ONCE",
    "WRITE_ONCE",
    "smp_mb",
    "smp_wmb",
    "smp_rmb",
    "smp_mb__before_atomic",
    "smp_mb__after_atomic",
    "smp_store_release",
    "smp_load_acquire",
    "xchg",
    "xchg_relaxed",
    "xchg_acquire",
    "xchg_release",
    "cmpxchg",
    "cmpxchg_relaxed",
    "cmpxchg_acquire",
    "cmpxchg_release",
    "atomic_load",
    "atomic_store",
    "atomic_exchange",
    "atomic_load_explicit",
    "atomic_store_explicit",
    "atomic_exchange_explicit",
    "atomic_fetch_add",
    "atomic_fetch_sub",
    "atomic_fetch_add_explicit",
    "atomic_fetch_sub_explicit",
    "atomic_fetch_and_explicit",
    "atomic_fetch_or_explicit",
    "atomic_fetch_xor_explicit",
    "atomic_compare_exchange_strong",
    "atomic_compare_exchange_weak",
    "atomic_compare_exchange_strong_explicit",
    "atomic_compare_exchange_weak_explicit",
    "atomic_thread_fence",
    "if",
    "while",
    "for",
    "switch",
    "return",
    "sizeof",
];

/// Refuses a call outside [`ALLOWED_CALLS`] in a body starting at byte `base`.
fn check_calls(body: &str, base: usize) -> Parsed<()> {
    for (offset, word) in words(body) {
        let after = body[offset + word.len()..].trim_start();
        if after.starts_with('(') && !ALLOWED_CALLS.contains(&word) {
            return Err(Refusal::at(
                base + offset,
                word.len(),
                format!("`{word}` is not supported"),
                "lazysma does not model this primitive",
            ));
        }
    }
    Ok(())
}

/// The identifiers of C text outside comments: (byte offset, word).
fn words(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if text[at..].starts_with("//") {
            at += text[at..].find('\n').unwrap_or(text.len() - at);
        } else if text[at..].starts_with("/*") {
            at += text[at + 2..].find("*/").map_or(text.len() - at, |i| i + 4);
        } else if bytes[at].is_ascii_alphabetic() || bytes[at] == b'_' {
            let length = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(text.len() - at);
            found.push((at, &text[at..at + length]));
            at += length;
        } else if bytes[at].is_ascii_digit() {
            let length = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(text.len() - at);
            at += length;
        } else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    found
}

/// The words that may start a register's declaration.
const REGISTER_TYPES: &[&str] = &[
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "intptr_t",
    "uintptr_t",
];

/// The body with each register declared without a value at its top level
/// given 0 (herd's registers start at 0), and the registers so declared:
/// (name, type, whether a pointer).
fn initialised_registers(body: &str) -> (String, Vec<(String, String, bool)>) {
    let mut registers = Vec::new();
    let mut inserts = Vec::new();
    let mut depth = 0usize;
    let mut at_statement_start = true;
    let all = words(body);
    let mut index = 0;
    let mut last_end = 0;
    while index < all.len() {
        let (offset, word) = all[index];
        let between = &body[last_end..offset];
        for c in between.chars() {
            match c {
                '{' => {
                    depth += 1;
                    at_statement_start = true;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    at_statement_start = true;
                }
                ';' => at_statement_start = true,
                c if c.is_whitespace() => {}
                _ => at_statement_start = false,
            }
        }
        last_end = offset + word.len();
        if !(depth == 0 && at_statement_start && REGISTER_TYPES.contains(&word)) {
            at_statement_start = false;
            index += 1;
            continue;
        }
        // a declaration: its type words, then declarators to the `;`
        let ctype_start = offset;
        while index + 1 < all.len() && REGISTER_TYPES.contains(&all[index + 1].1) {
            index += 1;
        }
        let ctype = body[ctype_start..all[index].0 + all[index].1.len()].to_string();
        let end = statement_end(body, all[index].0);
        let mut declarator_start = all[index].0 + all[index].1.len();
        for piece in split_top_level(&body[declarator_start..end]) {
            let trimmed = piece.trim_start();
            let pointer = trimmed.starts_with('*');
            let name_part = trimmed.trim_start_matches(['*', ' ', '\t']);
            let name_length = name_part
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(name_part.len());
            let name = &name_part[..name_length];
            if is_identifier(name) {
                registers.push((name.to_string(), ctype.clone(), pointer));
                if !piece.contains('=') {
                    let name_end = declarator_start + (piece.len() - name_part.len()) + name_length;
                    inserts.push(name_end);
                }
            }
            declarator_start += piece.len() + 1;
        }
        while index < all.len() && all[index].0 < end {
            index += 1;
        }
        last_end = end;
        at_statement_start = false;
    }
    let mut text = body.to_string();
    for insert in inserts.into_iter().rev() {
        text.insert_str(insert, " = 0");
    }
    (text, registers)
}

/// The offset of the `;` ending the statement at `from` (outside parentheses).
fn statement_end(body: &str, from: usize) -> usize {
    let mut depth = 0i32;
    for (i, c) in body[from..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ';' | '{' | '}' if depth <= 0 => return from + i,
            _ => {}
        }
    }
    body.len()
}

/// `text` split at its commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// The final condition after the threads (a `locations [...]` line before
/// it is skipped).
fn final_condition(
    cursor: &mut Cursor,
    locations: &[Location],
    threads: &[Thread],
) -> Parsed<Condition> {
    cursor.skip_trivia();
    if cursor.rest().starts_with("locations") {
        let close = cursor
            .rest()
            .find(']')
            .ok_or_else(|| cursor.unexpected("`]`"))?;
        cursor.at += close + 1;
        cursor.skip_trivia();
    }
    let offset = cursor.at;
    let quantifier = if cursor.eat("~") {
        cursor.expect("exists", "`exists` after `~`")?;
        Quantifier::NotExists
    } else if cursor.eat("exists") {
        Quantifier::Exists
    } else if cursor.eat("forall") {
        Quantifier::Forall
    } else if cursor.rest().starts_with("filter") {
        return Err(Refusal::at(
            offset,
            "filter".len(),
            "a `filter` clause is not supported",
            "lazysma answers the final condition alone",
        ));
    } else if cursor.rest().is_empty() {
        return Err(Refusal::at(
            offset,
            1,
            "the test has no final condition (`exists`, `~exists` or `forall`)",
            "the file ends here",
        ));
    } else {
        return Err(cursor.unexpected("a thread `Pn(...)` or the final condition"));
    };
    let mut parser = PropositionParser {
        cursor,
        locations,
        threads,
        registers: Vec::new(),
    };
    let proposition = parser.disjunction()?;
    let registers = std::mem::take(&mut parser.registers);
    cursor.skip_trivia();
    if !cursor.rest().is_empty() {
        return Err(cursor.unexpected("the end of the test after its condition"));
    }
    Ok(Condition {
        quantifier,
        offset,
        proposition,
        registers,
    })
}

/// herd's propositions: `\/`, `/\`, `~`, parentheses, `true`, `false`,
/// `x=1`, `[x]=1`, `0:r0=1`, `!=` too.
struct PropositionParser<'c, 't> {
    cursor: &'c mut Cursor<'t>,
    locations: &'c [Location],
    threads: &'c [Thread],
    registers: Vec<(usize, String)>,
}

impl PropositionParser<'_, '_> {
    fn disjunction(&mut self) -> Parsed<String> {
        let mut terms = vec![self.conjunction()?];
        while self.cursor.eat("\\/") {
            terms.push(self.conjunction()?);
        }
        Ok(join(terms, " || "))
    }

    fn conjunction(&mut self) -> Parsed<String> {
        let mut terms = vec![self.negation()?];
        while self.cursor.eat("/\\") {
            terms.push(self.negation()?);
        }
        Ok(join(terms, " && "))
    }

    fn negation(&mut self) -> Parsed<String> {
        if self.cursor.eat("~") || self.cursor.eat("not ") {
            return Ok(format!("!({})", self.negation()?));
        }
        if self.cursor.eat("(") {
            let inner = self.disjunction()?;
            self.cursor.expect(")", "`)`")?;
            return Ok(format!("({inner})"));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Parsed<String> {
        self.cursor.skip_trivia();
        let rest = self.cursor.rest();
        if let Some(word) = ["true", "false"].into_iter().find(|w| rest.starts_with(w)) {
            self.cursor.at += word.len();
            return Ok(if word == "true" { "1" } else { "0" }.to_string());
        }
        let (left, pointer) = self.location()?;
        let operator = if self.cursor.eat("!=") {
            "!="
        } else if self.cursor.eat("==") || self.cursor.eat("=") {
            "=="
        } else {
            return Err(self.cursor.unexpected("`=`"));
        };
        let value = self.value(pointer)?;
        Ok(format!("{left} {operator} {value}"))
    }

    /// The value a location or register is compared with: an integer, or
    /// for a pointer the location it points to (`1:r2=x`).
    fn value(&mut self, pointer: bool) -> Parsed<String> {
        self.cursor.skip_trivia();
        let start = self.cursor.at;
        let rest = self.cursor.rest();
        let length = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        let value = &rest[..length];
        let location = self.locations.iter().any(|l| l.name == value);
        let c_value = match integer(value) {
            Some(number) if !pointer => number.to_string(),
            None if pointer && location => format!("&{value}"),
            _ => {
                let expected = if pointer {
                    "a pointer compares with a location of the test"
                } else {
                    "an integer compares with an integer"
                };
                return Err(Refusal::at(
                    start,
                    length,
                    format!("the value `{value}` in the condition"),
                    expected,
                ));
            }
        };
        self.cursor.at += length;
        Ok(c_value)
    }

    /// `x`, `[x]` or `0:r0`, as the C expression of its final value, and
    /// whether it holds a pointer.
    fn location(&mut self) -> Parsed<(String, bool)> {
        self.cursor.skip_trivia();
        let bracketed = self.cursor.eat("[");
        let Some((start, word)) = self.cursor.word() else {
            return Err(self.cursor.unexpected("a location or `thread:register`"));
        };
        if bracketed {
            self.cursor.expect("]", "`]`")?;
        }
        if word.chars().all(|c| c.is_ascii_digit()) && self.cursor.eat(":") {
            let Some((register_start, register)) = self.cursor.word() else {
                return Err(self.cursor.unexpected("a register after `:`"));
            };
            let number = word.parse::<usize>().unwrap_or(usize::MAX);
            let (_, pointer) = register_of(self.threads, number, register, register_start)?;
            if !self
                .registers
                .iter()
                .any(|(n, r)| *n == number && r == register)
            {
                self.registers.push((number, register.to_string()));
            }
            return Ok((register_global(number, register), pointer));
        }
        match self.locations.iter().find(|l| l.name == word) {
            Some(location) => Ok((word.to_string(), location.ctype.ends_with('*'))),
            None => Err(Refusal::at(
                start,
                word.len(),
                format!("`{word}` is not a location of the test"),
                "no thread or init item names it",
            )),
        }
    }
}

fn join(terms: Vec<String>, operator: &str) -> String {
    if terms.len() == 1 {
        terms.into_iter().next().unwrap_or_default()
    } else {
        terms
            .iter()
            .map(|t| format!("({t})"))
            .collect::<Vec<_>>()
            .join(operator)
    }
}

/// The register `register` of thread `number`: (type, pointer).
fn register_of(
    threads: &[Thread],
    number: usize,
    register: &str,
    offset: usize,
) -> Parsed<(String, bool)> {
    let Some(thread) = threads.get(number) else {
        return Err(Refusal::at(
            offset,
            register.len(),
            format!("the condition names thread {number}, which the test does not have"),
            "no such thread",
        ));
    };
    thread
        .registers
        .iter()
        .find(|(name, _, _)| name == register)
        .map(|(_, ctype, pointer)| (ctype.clone(), *pointer))
        .ok_or_else(|| {
            Refusal::at(
                offset,
                register.len(),
                format!(
                    "`{register}` is not a register declared at the top level of P{number}'s body"
                ),
                "lazysma reads registers declared at the start of the thread",
            )
        })
}

/// The global a thread's register is copied into as the thread returns.
fn register_global(thread: usize, register: &str) -> String {
    format!("__litmus_P{thread}_{register}")
}

/// The `#line` directive for byte `offset` of the `.litmus` file.
fn line_directive(text: &str, offset: usize, file: &str) -> String {
    let (line, _) = line_and_column(text, offset);
    format!("#line {line} \"{file}\"\n")
}

fn emit(test: &LitmusTest, text: &str, path: &Path) -> String {
    let file = path
        .display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    let mut c = String::new();
    let _ = writeln!(c, "/* herd C litmus test {} */", test.name);
    c.push_str("#include <pthread.h>\n#include <assert.h>\n#include <stdatomic.h>\n");
    c.push_str(KERNEL_MACROS);
    for location in &test.locations {
        let _ = writeln!(
            c,
            "{} {} = {};",
            location.ctype, location.name, location.initial
        );
    }
    for (number, register) in &test.condition.registers {
        let ctype = match register_of(&test.threads, *number, register, 0) {
            Ok((ctype, true)) => format!("{ctype} *"),
            Ok((ctype, false)) => ctype,
            Err(_) => "int".to_string(),
        };
        let _ = writeln!(c, "{ctype} {};", register_global(*number, register));
    }
    for thread in &test.threads {
        emit_thread(&mut c, thread, &test.condition.registers, text, &file);
    }
    emit_main(&mut c, test, text, &file);
    c
}

fn emit_thread(
    c: &mut String,
    thread: &Thread,
    condition_registers: &[(usize, String)],
    text: &str,
    file: &str,
) {
    let number = thread.number;
    let parameters = thread
        .parameters
        .iter()
        .map(|(pointee, name)| format!("{pointee} *{name}"))
        .collect::<Vec<_>>()
        .join(", ");
    c.push_str(&line_directive(text, thread.body_start, file));
    let (_, column) = line_and_column(text, thread.body_start);
    let _ = writeln!(c, "static void __litmus_body_P{number}({parameters})");
    c.push_str(&line_directive(text, thread.body_start, file));
    c.push_str(&" ".repeat(column.saturating_sub(1) as usize));
    c.push('{');
    c.push_str(&thread.body);
    for (_, register) in condition_registers.iter().filter(|(n, _)| *n == number) {
        let _ = write!(c, " {} = {register};", register_global(number, register));
    }
    c.push_str("}\n");
    let arguments = thread
        .parameters
        .iter()
        .map(|(pointee, name)| format!("({pointee} *)&{name}"))
        .collect::<Vec<_>>()
        .join(", ");
    c.push_str(&line_directive(text, thread.body_start, file));
    let _ = writeln!(
        c,
        "void *P{number}(void *__litmus_argument) {{ __litmus_body_P{number}({arguments}); return 0; }}"
    );
}

fn emit_main(c: &mut String, test: &LitmusTest, text: &str, file: &str) {
    // main's lines are the condition's: the witness shows it for each
    let at_condition = line_directive(text, test.condition.offset, file);
    let mut line = |statement: String| {
        c.push_str(&at_condition);
        c.push_str(&statement);
        c.push('\n');
    };
    line("int main(void) {".to_string());
    for thread in &test.threads {
        let n = thread.number;
        line(format!(
            "  pthread_t __litmus_t{n}; pthread_create(&__litmus_t{n}, 0, P{n}, 0);"
        ));
    }
    for thread in &test.threads {
        line(format!("  pthread_join(__litmus_t{}, 0);", thread.number));
    }
    let proposition = &test.condition.proposition;
    line(match test.condition.quantifier {
        Quantifier::Exists | Quantifier::NotExists => format!("  assert(!({proposition}));"),
        Quantifier::Forall => format!("  assert({proposition});"),
    });
    line("  return 0;\n}".to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = "C MP\n\n{}\n\nP0(int *buf, int *flag)\n{\n\tWRITE_ONCE(*buf, 1);\n\t\
        smp_store_release(flag, 1);\n}\n\nP1(int *buf, int *flag)\n{\n\tint r0;\n\tint r1;\n\n\t\
        r0 = smp_load_acquire(flag);\n\tr1 = READ_ONCE(*buf);\n}\n\n\
        exists (1:r0=1 /\\ 1:r1=0) (* Bad outcome. *)\n";

    #[test]
    fn message_passing_becomes_threads_and_an_assertion() {
        let c = to_c(MP, Path::new("MP.litmus")).expect("MP converts");
        assert!(c.contains("int buf = 0;"), "{c}");
        assert!(c.contains("int r0 = 0;"), "{c}");
        assert!(c.contains("__litmus_P1_r0 = r0;"), "{c}");
        assert!(
            c.contains("assert(!(((__litmus_P1_r0 == 1) && (__litmus_P1_r1 == 0))));"),
            "{c}"
        );
        assert!(c.contains("#line 6 \"MP.litmus\""), "{c}");
    }

    #[test]
    fn unsupported_primitives_are_refused_at_their_place() {
        let text = "C L\n{}\nP0(int *x)\n{\n  spin_lock(x);\n}\nexists (x=1)\n";
        let diagnostic = to_c(text, Path::new("L.litmus")).expect_err("refused");
        assert_eq!((diagnostic.line, diagnostic.column), (5, 3));
        assert!(diagnostic.message.contains("spin_lock"));
    }

    #[test]
    fn filters_and_missing_conditions_are_refused() {
        let filter =
            "C F\n{}\nP0(int *x)\n{\n  WRITE_ONCE(*x, 1);\n}\nfilter (x=1)\nexists (x=1)\n";
        let diagnostic = to_c(filter, Path::new("F.litmus")).expect_err("refused");
        assert_eq!(diagnostic.line, 7);
        let none = "C N\n{}\nP0(int *x)\n{\n  WRITE_ONCE(*x, 1);\n}\n";
        assert!(to_c(none, Path::new("N.litmus")).is_err());
    }

    #[test]
    fn conditions_of_each_kind() {
        let base = "C K\n{ x = 1; }\nP0(int *x)\n{\n  int r0 = READ_ONCE(*x);\n}\n";
        let forall = to_c(
            &format!("{base}forall (0:r0=1 \\/ ~x=2)\n"),
            Path::new("K.litmus"),
        )
        .expect("forall converts");
        assert!(
            forall.contains("assert(((__litmus_P0_r0 == 1) || (!(x == 2))));"),
            "{forall}"
        );
        let never = to_c(&format!("{base}~exists (0:r0=0)\n"), Path::new("K.litmus"))
            .expect("~exists converts");
        assert!(
            never.contains("assert(!((__litmus_P0_r0 == 0)));"),
            "{never}"
        );
    }

    #[test]
    fn pointer_values_that_cannot_be_modelled_are_refused() {
        let text = "C P\n{ int *z=1; }\nP0(int **z)\n{\n}\nexists (0:r0=1)\n";
        let diagnostic = to_c(text, Path::new("P.litmus")).expect_err("refused");
        assert_eq!(diagnostic.line, 2);
    }

    #[test]
    fn any_prefix_or_odd_character_is_converted_or_refused_without_panic() {
        let odd = MP
            .replace("int *flag", "int *flagé")
            .replace("r1;", "r1; // ü");
        for text in [MP, odd.as_str()] {
            for (end, _) in text.char_indices() {
                let _ = to_c(&text[..end], Path::new("T.litmus"));
                let _ = to_c(
                    &format!("{}é{}", &text[..end], &text[end..]),
                    Path::new("T.litmus"),
                );
            }
        }
    }
}
