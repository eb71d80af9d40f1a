//! A herd C litmus test as a plain pthreads C program, read from herd's
//! dialect on its own (not through lazysma's `.litmus` frontend), so that
//! the two routes can check each other: the init block becomes globals
//! (0 unless given), each `Pn(...) { body }` a function `Pn` called by a
//! thread function `thread_Pn` with the addresses of the globals (cast to
//! the thread's own parameter types), its top-level registers set to 0
//! first and the registers the condition names copied into globals
//! (`out_1_r0`) at its end, and `main` creates and joins every thread and
//! asserts the condition: `assert(!(P))` for `exists P` and `~exists P`,
//! `assert(P)` for `forall P`. The Linux-kernel primitives and the C11
//! atomics are macros of [`PRELUDE`] over GCC's `__atomic` builtins.

use std::fmt::Write as _;

use super::condition::{self, Names, Operand, Proposition};

/// Why a test is beyond this converter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unsupported(String);

impl Unsupported {
    pub(crate) fn new(reason: impl Into<String>) -> Unsupported {
        Unsupported(reason.into())
    }
}

/// The primitives of herd's C dialect over GCC's builtins, chosen by the
/// documented mapping to TSO and PSO (docs/supported-c.md): a kernel
/// `_ONCE` access is a relaxed one, `smp_wmb` a release fence (store-store),
/// `smp_rmb` nothing (neither model reorders loads), `smp_mb` a full
/// fence, the read-modify-writes locked whatever their order.
const PRELUDE: &str = r#"#include <pthread.h>
#include <assert.h>

typedef _Atomic int atomic_int;
#define memory_order_relaxed __ATOMIC_RELAXED
#define memory_order_consume __ATOMIC_CONSUME
#define memory_order_acquire __ATOMIC_ACQUIRE
#define memory_order_release __ATOMIC_RELEASE
#define memory_order_acq_rel __ATOMIC_ACQ_REL
#define memory_order_seq_cst __ATOMIC_SEQ_CST

#define READ_ONCE(place) __atomic_load_n(&(place), __ATOMIC_RELAXED)
#define WRITE_ONCE(place, value) __atomic_store_n(&(place), (value), __ATOMIC_RELAXED)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb() ((void)0)
#define smp_mb__before_atomic() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb__after_atomic() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(place, value) __atomic_store_n((place), (value), __ATOMIC_RELEASE)
#define smp_load_acquire(place) __atomic_load_n((place), __ATOMIC_ACQUIRE)
#define xchg(place, value) __atomic_exchange_n((place), (value), __ATOMIC_SEQ_CST)
#define xchg_relaxed(place, value) __atomic_exchange_n((place), (value), __ATOMIC_RELAXED)
#define xchg_acquire(place, value) __atomic_exchange_n((place), (value), __ATOMIC_ACQUIRE)
#define xchg_release(place, value) __atomic_exchange_n((place), (value), __ATOMIC_RELEASE)
static int kernel_cmpxchg(int *place, int old, int replacement)
{
  __atomic_compare_exchange_n(place, &old, replacement, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return old;
}
#define cmpxchg(place, old, replacement) kernel_cmpxchg((place), (old), (replacement))
#define cmpxchg_relaxed(place, old, replacement) kernel_cmpxchg((place), (old), (replacement))
#define cmpxchg_acquire(place, old, replacement) kernel_cmpxchg((place), (old), (replacement))
#define cmpxchg_release(place, old, replacement) kernel_cmpxchg((place), (old), (replacement))

#define atomic_thread_fence(order) __atomic_thread_fence(order)
#define atomic_load_explicit(place, order) __atomic_load_n((place), (order))
#define atomic_load(place) __atomic_load_n((place), __ATOMIC_SEQ_CST)
#define atomic_store_explicit(place, value, order) __atomic_store_n((place), (value), (order))
#define atomic_store(place, value) __atomic_store_n((place), (value), __ATOMIC_SEQ_CST)
#define atomic_exchange_explicit(place, value, order) __atomic_exchange_n((place), (value), (order))
#define atomic_exchange(place, value) __atomic_exchange_n((place), (value), __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_strong_explicit(place, expected, desired, success, failure) \
  __atomic_compare_exchange_n((place), (expected), (desired), 0, (success), (failure))
#define atomic_compare_exchange_strong(place, expected, desired) \
  __atomic_compare_exchange_n((place), (expected), (desired), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_weak_explicit(place, expected, desired, success, failure) \
  __atomic_compare_exchange_n((place), (expected), (desired), 1, (success), (failure))
#define atomic_compare_exchange_weak(place, expected, desired) \
  __atomic_compare_exchange_n((place), (expected), (desired), 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_fetch_add_explicit(place, value, order) __atomic_fetch_add((place), (value), (order))
#define atomic_fetch_add(place, value) __atomic_fetch_add((place), (value), __ATOMIC_SEQ_CST)
#define atomic_fetch_sub_explicit(place, value, order) __atomic_fetch_sub((place), (value), (order))
#define atomic_fetch_sub(place, value) __atomic_fetch_sub((place), (value), __ATOMIC_SEQ_CST)
#define atomic_fetch_and_explicit(place, value, order) __atomic_fetch_and((place), (value), (order))
#define atomic_fetch_and(place, value) __atomic_fetch_and((place), (value), __ATOMIC_SEQ_CST)
#define atomic_fetch_or_explicit(place, value, order) __atomic_fetch_or((place), (value), (order))
#define atomic_fetch_or(place, value) __atomic_fetch_or((place), (value), __ATOMIC_SEQ_CST)
#define atomic_fetch_xor_explicit(place, value, order) __atomic_fetch_xor((place), (value), (order))
#define atomic_fetch_xor(place, value) __atomic_fetch_xor((place), (value), __ATOMIC_SEQ_CST)
"#;

/// The words a declaration of a register may start with.
const TYPE_WORDS: [&str; 14] = [
    "int",
    "long",
    "short",
    "char",
    "unsigned",
    "signed",
    "_Bool",
    "bool",
    "intptr_t",
    "uintptr_t",
    "atomic_int",
    "_Atomic",
    "volatile",
    "const",
];

/// A shared location: its global's C type and initial value.
#[derive(Debug, Clone)]
struct Location {
    name: String,
    ctype: String,
    initial: String,
}

/// A parameter of a thread: its C type as written and its name.
#[derive(Debug, Clone)]
struct Parameter {
    ctype: String,
    name: String,
}

/// A thread `Pn(parameters) { body }`, its body without comments.
#[derive(Debug)]
struct Thread {
    parameters: Vec<Parameter>,
    body: String,
}

/// What the condition claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

/// An item of the init block: a location, its C type and value if given.
#[derive(Debug)]
struct InitItem {
    name: String,
    ctype: Option<String>,
    value: Option<String>,
}

/// A register declared at the top level of a thread's body.
#[derive(Debug)]
struct Register {
    name: String,
    ctype: String,
    /// Whether its declaration gives it a value.
    initialised: bool,
    /// The byte offset just after its declaration.
    after: usize,
}

/// A register the condition reads, with its C type.
#[derive(Debug)]
struct ReadRegister {
    thread: usize,
    name: String,
    ctype: String,
}

/// A test as read: its init block's items, threads and condition.
#[derive(Debug)]
struct Test {
    initialised: Vec<InitItem>,
    threads: Vec<Thread>,
    quantifier: Quantifier,
    proposition: Proposition,
}

/// The pthreads C program of the herd C litmus test `text`.
pub(crate) fn to_pthreads(text: &str) -> Result<String, Unsupported> {
    let test = read_test(text)?;
    let locations = locations(&test)?;
    emit(&test, &locations)
}

/// `text` with every comment (herd's `(* *)`, nested, when `herd` is set,
/// and C's `//` and `/* */`) blanked, character for character.
fn without_comments(text: &str, herd: bool) -> String {
    let characters: Vec<char> = text.chars().collect();
    let mut kept = String::with_capacity(text.len());
    let mut at = 0;
    while at < characters.len() {
        let pair = (characters[at], characters.get(at + 1).copied());
        let end = match pair {
            ('(', Some('*')) if herd => herd_comment_end(&characters, at),
            ('/', Some('/')) => (at..characters.len())
                .find(|&i| characters[i] == '\n')
                .unwrap_or(characters.len()),
            ('/', Some('*')) => (at + 2..characters.len())
                .find(|&i| characters[i] == '*' && characters.get(i + 1) == Some(&'/'))
                .map_or(characters.len(), |i| i + 2),
            _ => {
                kept.push(characters[at]);
                at += 1;
                continue;
            }
        };
        kept.extend(
            characters[at..end]
                .iter()
                .map(|&c| if c == '\n' { '\n' } else { ' ' }),
        );
        at = end;
    }
    kept
}

/// The index after the `*)` closing the herd comment opened at `start`.
fn herd_comment_end(characters: &[char], start: usize) -> usize {
    let mut depth = 0;
    let mut at = start;
    while at + 1 < characters.len() {
        match (characters[at], characters[at + 1]) {
            ('(', '*') => {
                depth += 1;
                at += 2;
            }
            ('*', ')') => {
                depth -= 1;
                at += 2;
                if depth == 0 {
                    return at;
                }
            }
            _ => at += 1,
        }
    }
    characters.len()
}

/// Reads the test: the header line, the init block, the threads (whose C
/// comments go, but whose `(*` is C), `locations [...]` and the condition.
fn read_test(text: &str) -> Result<Test, Unsupported> {
    let (header, rest) = text.split_once('\n').unwrap_or((text, ""));
    if !header.trim_start().starts_with("C ") {
        return Err(Unsupported::new("the first line is not `C NAME`"));
    }
    let rest = skip_herd_trivia(rest);
    let rest = rest
        .strip_prefix('{')
        .ok_or_else(|| Unsupported::new("no init block after the first line"))?;
    let (init, mut rest) = rest
        .split_once('}')
        .ok_or_else(|| Unsupported::new("the init block has no `}`"))?;
    let initialised = init_items(&without_comments(init, true))?;
    let mut threads = Vec::new();
    loop {
        rest = skip_herd_trivia(rest);
        match read_thread(rest, threads.len())? {
            Some((thread, after)) => {
                threads.push(thread);
                rest = after;
            }
            None => break,
        }
    }
    let (quantifier, proposition) = read_condition(rest)?;
    Ok(Test {
        initialised,
        threads,
        quantifier,
        proposition,
    })
}

/// `text` after white space and comments of both kinds.
fn skip_herd_trivia(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let length = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("(*") || rest.starts_with("/*") {
            block_comment_length(rest)
        } else {
            return rest;
        };
        rest = rest[length..].trim_start();
    }
}

/// The length in bytes of the `(* *)` or `/* */` comment `text` starts with.
fn block_comment_length(text: &str) -> usize {
    let characters: Vec<char> = text.chars().collect();
    let end = if text.starts_with("(*") {
        herd_comment_end(&characters, 0)
    } else {
        (2..characters.len())
            .find(|&i| characters[i] == '*' && characters.get(i + 1) == Some(&'/'))
            .map_or(characters.len(), |i| i + 2)
    };
    characters[..end].iter().map(|c| c.len_utf8()).sum()
}

/// The items of the init block.
fn init_items(init: &str) -> Result<Vec<InitItem>, Unsupported> {
    init.split(';')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (left, value) = match item.split_once('=') {
                Some((left, value)) => (left.trim(), Some(value.trim().to_string())),
                None => (item, None),
            };
            if left.contains(':') {
                return Err(Unsupported::new(format!(
                    "the register initialised in `{item}`"
                )));
            }
            let left = left.trim_start_matches('[').trim_end_matches(']').trim();
            let (ctype, name) = split_declaration(left)?;
            Ok(InitItem {
                name,
                ctype: (!ctype.is_empty()).then_some(ctype),
                value,
            })
        })
        .collect()
}

/// `TYPE NAME` as (TYPE, NAME), the type possibly empty.
fn split_declaration(text: &str) -> Result<(String, String), Unsupported> {
    let name_start = text
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &text[name_start..];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(Unsupported::new(format!("the declaration `{text}`")));
    }
    Ok((text[..name_start].trim().to_string(), name.to_string()))
}

/// The thread `Pnumber` at the start of `text` and the text after it, or
/// `None` where the threads end.
fn read_thread(text: &str, number: usize) -> Result<Option<(Thread, &str)>, Unsupported> {
    let Some(after_p) = text.strip_prefix('P') else {
        return Ok(None);
    };
    let digits = after_p.len()
        - after_p
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return Ok(None);
    }
    if after_p[..digits].parse::<usize>().ok() != Some(number) {
        return Err(Unsupported::new(format!(
            "P{} is not thread {number}",
            &after_p[..digits]
        )));
    }
    let rest = after_p[digits..].trim_start();
    let (parameters, rest) = rest
        .strip_prefix('(')
        .and_then(|rest| rest.split_once(')'))
        .ok_or_else(|| Unsupported::new(format!("the parameters of P{number}")))?;
    let rest = skip_herd_trivia(rest);
    let body_length = body_length(rest)
        .ok_or_else(|| Unsupported::new(format!("the body of P{number} has no closing brace")))?;
    let thread = Thread {
        parameters: read_parameters(parameters)?,
        body: without_comments(&rest[1..body_length - 1], false),
    };
    Ok(Some((thread, &rest[body_length..])))
}

/// The length of the braced body at the start of `text`, braces included,
/// skipping C comments.
fn body_length(text: &str) -> Option<usize> {
    if !text.starts_with('{') {
        return None;
    }
    let plain = without_comments(text, false);
    let mut depth = 0usize;
    for (index, c) in plain.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let characters = plain[..=index].chars().count();
                    return Some(text.chars().take(characters).map(char::len_utf8).sum());
                }
            }
            _ => {}
        }
    }
    None
}

fn read_parameters(text: &str) -> Result<Vec<Parameter>, Unsupported> {
    text.split(',')
        .map(str::trim)
        .filter(|parameter| !parameter.is_empty())
        .map(|parameter| {
            let (ctype, name) = split_declaration(parameter)?;
            if !ctype.ends_with('*') {
                return Err(Unsupported::new(format!(
                    "the parameter `{parameter}` is no pointer"
                )));
            }
            Ok(Parameter { ctype, name })
        })
        .collect()
}

/// The quantifier and proposition after the threads (`locations [...]`
/// skipped).
fn read_condition(text: &str) -> Result<(Quantifier, Proposition), Unsupported> {
    let mut rest = skip_herd_trivia(text);
    if let Some(after) = rest.strip_prefix("locations") {
        let (_, after) = after
            .split_once(']')
            .ok_or_else(|| Unsupported::new("`locations` without `]`"))?;
        rest = skip_herd_trivia(after);
    }
    let (quantifier, proposition) = if let Some(after) = rest.strip_prefix("~exists") {
        (Quantifier::NotExists, after)
    } else if let Some(after) = rest.strip_prefix("exists") {
        (Quantifier::Exists, after)
    } else if let Some(after) = rest.strip_prefix("forall") {
        (Quantifier::Forall, after)
    } else {
        let word: String = rest.chars().take(20).collect();
        return Err(Unsupported::new(format!("no condition where `{word}` is")));
    };
    Ok((
        quantifier,
        condition::parse(&without_comments(proposition, true))?,
    ))
}

/// A parameter's pointee type as a global's type: qualifiers and
/// atomicity go (each thread's own parameter type restores them).
fn global_type(parameter_type: &str) -> String {
    let pointee = parameter_type
        .trim()
        .strip_suffix('*')
        .unwrap_or(parameter_type);
    let words: Vec<&str> = pointee
        .split_whitespace()
        .filter(|word| !["volatile", "const", "_Atomic"].contains(word))
        .map(|word| if word == "atomic_int" { "int" } else { word })
        .collect();
    if words.is_empty() {
        "int".to_string()
    } else {
        words.join(" ").replace(" *", "*")
    }
}

/// The locations as globals, in the order C needs: those only parameters
/// name first (zero), then the init block's in its order.
fn locations(test: &Test) -> Result<Vec<Location>, Unsupported> {
    let parameter_type = |name: &str| {
        test.threads
            .iter()
            .flat_map(|thread| &thread.parameters)
            .find(|parameter| parameter.name == name)
            .map(|parameter| global_type(&parameter.ctype))
    };
    let mut found: Vec<Location> = Vec::new();
    for thread in &test.threads {
        for parameter in &thread.parameters {
            let known = found.iter().any(|location| location.name == parameter.name)
                || test
                    .initialised
                    .iter()
                    .any(|item| item.name == parameter.name);
            if !known {
                found.push(Location {
                    name: parameter.name.clone(),
                    ctype: global_type(&parameter.ctype),
                    initial: "0".to_string(),
                });
            }
        }
    }
    for item in &test.initialised {
        let ctype = match &item.ctype {
            Some(ctype) => global_type(&format!("{ctype}*")),
            None => parameter_type(&item.name).unwrap_or_else(|| "int".to_string()),
        };
        let initial = initial_value(item.value.as_deref(), &found)?;
        found.push(Location {
            name: item.name.clone(),
            ctype,
            initial,
        });
    }
    Ok(found)
}

/// An init value in C: a number, or `&y` of a location declared before.
fn initial_value(value: Option<&str>, before: &[Location]) -> Result<String, Unsupported> {
    let Some(value) = value else {
        return Ok("0".to_string());
    };
    if value.parse::<i64>().is_ok() {
        return Ok(value.to_string());
    }
    match value.strip_prefix('&').map(str::trim) {
        Some(target) if before.iter().any(|location| location.name == target) => {
            Ok(format!("&{}", global_name(target)))
        }
        _ => Err(Unsupported::new(format!("the init value `{value}`"))),
    }
}

/// The global of a location.
fn global_name(location: &str) -> String {
    format!("shared_{location}")
}

/// The global a register is copied into.
fn register_global(thread: usize, name: &str) -> String {
    format!("out_{thread}_{name}")
}

/// What the condition's names are in the program.
struct ProgramNames<'a> {
    locations: &'a [Location],
    register_types: &'a [ReadRegister],
}

impl Names for ProgramNames<'_> {
    fn register(&self, thread: usize, name: &str) -> String {
        register_global(thread, name)
    }

    fn location(&self, name: &str) -> String {
        global_name(name)
    }

    fn is_pointer(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Register { thread, name } => self.register_types.iter().any(|read| {
                read.thread == *thread && read.name == *name && read.ctype.contains('*')
            }),
            Operand::Location(name) => self
                .locations
                .iter()
                .any(|location| location.name == *name && location.ctype.contains('*')),
            Operand::Value(_) => false,
        }
    }
}

/// A statement at the top level of a body: its text and the byte offset
/// just after it.
fn top_level_statements(body: &str) -> Vec<(&str, usize)> {
    let mut statements = Vec::new();
    let mut start = 0;
    let mut parentheses = 0i32;
    let mut braces = 0i32;
    for (index, c) in body.char_indices() {
        match c {
            '(' => parentheses += 1,
            ')' => parentheses -= 1,
            '{' => braces += 1,
            '}' => braces -= 1,
            _ => {}
        }
        let ends = parentheses == 0 && braces == 0 && (c == ';' || c == '}');
        if ends {
            statements.push((body[start..index].trim(), index + 1));
            start = index + 1;
        }
    }
    statements
}

/// A declaration statement's type words and declarators, or `None`.
fn declaration(statement: &str) -> Option<(String, Vec<String>)> {
    let first = statement
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()?;
    if !TYPE_WORDS.contains(&first) {
        return None;
    }
    let mut words = statement;
    let mut base = Vec::new();
    loop {
        let word_end = words
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(words.len());
        let word = &words[..word_end];
        if !TYPE_WORDS.contains(&word) {
            break;
        }
        base.push(word);
        words = words[word_end..].trim_start();
    }
    Some((base.join(" "), split_top_level(words, ',')))
}

/// `text` split at `separator` outside parentheses.
fn split_top_level(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == separator && depth == 0 {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
}

/// The registers declared at the top level of a body.
fn registers(body: &str) -> Vec<Register> {
    let mut found = Vec::new();
    for (statement, after) in top_level_statements(body) {
        let Some((base, declarators)) = declaration(statement) else {
            continue;
        };
        for declarator in declarators {
            let (target, initialised) = match declarator.split_once('=') {
                Some((target, _)) => (target, true),
                None => (declarator.as_str(), false),
            };
            let stars = target.matches('*').count();
            let name = target.replace('*', "").trim().to_string();
            let ctype = format!("{}{}", global_type(&format!("{base}*")), "*".repeat(stars));
            found.push(Register {
                name,
                ctype,
                initialised,
                after,
            });
        }
    }
    found
}

/// The function `Pn`: its body with the registers set to 0 after their
/// declarations, then each register the condition reads copied out.
fn emit_thread(c: &mut String, number: usize, thread: &Thread, copied: &[(String, String)]) {
    let mut body = thread.body.clone();
    let mut zeroed: Vec<(String, usize)> = registers(&thread.body)
        .into_iter()
        .filter(|register| !register.initialised)
        .map(|register| (register.name, register.after))
        .collect();
    zeroed.sort_by_key(|(_, after)| std::cmp::Reverse(*after));
    for (name, after) in zeroed {
        body.insert_str(after, &format!(" {name} = 0;"));
    }
    let parameters: Vec<String> = thread
        .parameters
        .iter()
        .map(|parameter| format!("{} {}", parameter.ctype, parameter.name))
        .collect();
    let _ = writeln!(
        c,
        "static void P{number}({})\n{{{body}",
        parameters.join(", ")
    );
    for (register, global) in copied {
        let _ = writeln!(c, "  {global} = {register};");
    }
    let _ = writeln!(c, "}}\n");
    let arguments: Vec<String> = thread
        .parameters
        .iter()
        .map(|parameter| format!("({})&{}", parameter.ctype, global_name(&parameter.name)))
        .collect();
    let _ = writeln!(
        c,
        "static void *thread_P{number}(void *unused)\n{{\n  (void)unused;\n  P{number}({});\n  return 0;\n}}\n",
        arguments.join(", ")
    );
}

/// The type of each register the condition reads, or why one is missing.
fn register_types(test: &Test) -> Result<Vec<ReadRegister>, Unsupported> {
    test.proposition
        .registers()
        .into_iter()
        .map(|(thread, name)| {
            let body = &test
                .threads
                .get(thread)
                .ok_or_else(|| Unsupported::new(format!("the condition reads P{thread}")))?
                .body;
            let ctype = registers(body)
                .into_iter()
                .find(|register| register.name == name)
                .map(|register| register.ctype)
                .ok_or_else(|| {
                    Unsupported::new(format!(
                        "{thread}:{name} is not declared at the top level of P{thread}"
                    ))
                })?;
            Ok(ReadRegister {
                thread,
                name,
                ctype,
            })
        })
        .collect()
}

/// The whole program.
fn emit(test: &Test, locations: &[Location]) -> Result<String, Unsupported> {
    let register_types = register_types(test)?;
    let mut c = String::from(PRELUDE);
    c.push('\n');
    for location in locations {
        let _ = writeln!(
            c,
            "{} {} = {};",
            location.ctype,
            global_name(&location.name),
            location.initial
        );
    }
    for read in &register_types {
        let _ = writeln!(
            c,
            "{} {};",
            read.ctype,
            register_global(read.thread, &read.name)
        );
    }
    c.push('\n');
    for (number, thread) in test.threads.iter().enumerate() {
        let copied: Vec<(String, String)> = register_types
            .iter()
            .filter(|read| read.thread == number)
            .map(|read| (read.name.clone(), register_global(read.thread, &read.name)))
            .collect();
        emit_thread(&mut c, number, thread, &copied);
    }
    let names = ProgramNames {
        locations,
        register_types: &register_types,
    };
    emit_main(&mut c, test, &names);
    Ok(c)
}

/// `main`: every thread created, every one joined, the condition asserted.
fn emit_main(c: &mut String, test: &Test, names: &ProgramNames<'_>) {
    let count = test.threads.len();
    let _ = writeln!(c, "int main(void)\n{{");
    let _ = writeln!(c, "  pthread_t threads[{}];", count.max(1));
    for number in 0..count {
        let _ = writeln!(
            c,
            "  pthread_create(&threads[{number}], 0, thread_P{number}, 0);"
        );
    }
    for number in 0..count {
        let _ = writeln!(c, "  pthread_join(threads[{number}], 0);");
    }
    let proposition = test.proposition.to_c(names);
    let asserted = match test.quantifier {
        Quantifier::Exists | Quantifier::NotExists => format!("!({proposition})"),
        Quantifier::Forall => proposition,
    };
    let _ = writeln!(c, "  assert({asserted});\n  return 0;\n}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "C SB\n(* a comment *)\n{ x = 0; int *p = &x; }\n\
        P0(int *x, int *y) // first\n{\n  int r0;\n  WRITE_ONCE(*x, 1);\n  r0 = READ_ONCE(*y);\n}\n\
        P1(int *x, volatile int *y) {\n  int r0 = 2, r1;\n  if (r0) { r1 = *x; }\n  WRITE_ONCE(*y, 1);\n}\n\
        locations [x;]\nexists (0:r0=0 /\\ 1:r1=0) (* end *)\n";

    #[test]
    fn globals_come_from_the_parameters_and_the_init_block_in_order() {
        let c = to_pthreads(SB).expect("converts");
        let y = c.find("int shared_y = 0;").expect("y is a global");
        let x = c.find("int shared_x = 0;").expect("x is a global");
        let p = c.find("int* shared_p = &shared_x;").expect("p points to x");
        assert!(y < x && x < p, "{c}");
        assert!(
            c.contains("P1((int *)&shared_x, (volatile int *)&shared_y);"),
            "{c}"
        );
    }

    #[test]
    fn registers_start_at_zero_and_the_read_ones_are_copied_out() {
        let c = to_pthreads(SB).expect("converts");
        assert!(c.contains("int r0; r0 = 0;"), "{c}");
        assert!(c.contains("int r0 = 2, r1; r1 = 0;"), "{c}");
        assert!(
            c.contains("out_0_r0 = r0;") && c.contains("out_1_r1 = r1;"),
            "{c}"
        );
        assert!(!c.contains("out_1_r0"), "{c}");
        assert!(
            c.contains("assert(!(((out_0_r0 == 0) && (out_1_r1 == 0))));"),
            "{c}"
        );
    }

    #[test]
    fn forall_asserts_the_proposition_itself() {
        let c = to_pthreads(
            "C F\n{ x = 1 }\nP0 (const int* x) {\n  int r0 = *x;\n}\nforall (0:r0=1)\n",
        )
        .expect("converts");
        assert!(c.contains("int shared_x = 1;"), "{c}");
        assert!(c.contains("assert((out_0_r0 == 1));"), "{c}");
    }

    #[test]
    fn a_register_of_a_nested_block_is_unsupported() {
        let text = "C N\n{}\nP0(int *x) {\n  if (1) { int r0 = *x; }\n}\nexists (0:r0=1)\n";
        let reason = to_pthreads(text).expect_err("refused");
        assert!(reason.to_string().contains("0:r0"), "{reason}");
    }
}
