//! Inline assembly with operands (GCC's extended `asm`): the x86 atomics
//! and fences lock-free libraries write by hand (concurrencykit's x86_64
//! port), lowered to the exchanges, read-modify-writes, loads, stores and
//! fences lazysma has. Each operand of the statement is memory (an lvalue,
//! constraint `m`), a register (the one its constraint names, `a` for
//! `rax` and so on, or one of its own for `r`, `q`, ...) or a condition
//! flag output (`=@ccz`); the instructions run in turn on those registers
//! and on memory, with x86's semantics (a `lock`ed instruction, and
//! `xchg`, is one atomic read-modify-write; without `lock` it is a load
//! and a store), and the output operands get their registers' values at
//! the end. Any other instruction is refused, named.

use super::assembly::{ASM_HELP, asm_fence, asm_instructions};
use super::atomics::RmwConstructor;
use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val, memory_type};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::HashMap;

/// What an operand of the statement is.
#[derive(Clone)]
enum Operand {
    /// An object the instructions read or write as memory.
    Memory(LVal),
    /// A register, by name (`rax`, or `%3` for operand 3's own).
    Register(String),
    /// A condition flag output (`=@ccz`).
    Flag(Condition),
}

/// A condition of the flags an output operand (`=@cc...`) or `set...` reads.
#[derive(Clone, Copy)]
enum Condition {
    Zero,
    NotZero,
    Carry,
    NotCarry,
}

/// An argument of one instruction of the template.
enum Argument {
    Memory(LVal),
    Register(String),
    Immediate(i64),
    /// `(%0)`: memory at the address a register holds (only prefetched).
    Indirect,
}

/// The registers and flags while the instructions run.
#[derive(Default)]
struct Registers {
    values: HashMap<String, Val>,
    zero: Option<Expr>,
    carry: Option<Expr>,
}

/// The instructions understood, without their size suffix.
const MNEMONICS: [&str; 28] = [
    "cmpxchg",
    "xchg",
    "xadd",
    "mov",
    "inc",
    "dec",
    "neg",
    "not",
    "add",
    "sub",
    "and",
    "or",
    "xor",
    "bts",
    "btr",
    "btc",
    "setz",
    "sete",
    "setnz",
    "setne",
    "setc",
    "setb",
    "setnc",
    "setae",
    "prefetchw",
    "prefetcht0",
    "prefetchnta",
    "prefetch",
];

/// `cmpxchgl` as (`cmpxchg`, its size suffix), if it is one of [`MNEMONICS`].
fn mnemonic(word: &str) -> Option<&'static str> {
    MNEMONICS.iter().copied().find(|base| {
        word == *base
            || word
                .strip_prefix(base)
                .is_some_and(|suffix| matches!(suffix, "b" | "w" | "l" | "q"))
    })
}

/// The register a hard register's name (`%%eax`, `%%al`) is part of.
fn hard_register(name: &str) -> Option<&'static str> {
    Some(match name {
        "rax" | "eax" | "ax" | "al" => "rax",
        "rbx" | "ebx" | "bx" | "bl" => "rbx",
        "rcx" | "ecx" | "cx" | "cl" => "rcx",
        "rdx" | "edx" | "dx" | "dl" => "rdx",
        "rsi" | "esi" | "si" => "rsi",
        "rdi" | "edi" | "di" => "rdi",
        _ => return None,
    })
}

/// The register a constraint names (`a`: `rax`), `None` for a register of
/// the operand's own (`r`, `q`, `g`, ...).
fn named_register(letters: &str) -> Option<&'static str> {
    letters.chars().find_map(|letter| {
        Some(match letter {
            'a' => "rax",
            'b' => "rbx",
            'c' => "rcx",
            'd' => "rdx",
            'S' => "rsi",
            'D' => "rdi",
            _ => return None,
        })
    })
}

/// How an operand's constraint places it.
enum Placement {
    Memory,
    Register(String),
    /// A digit: the register of that output operand.
    Matching(usize),
    Flag(Condition),
}

/// The placement of operand `index` by its constraint (without `=`, `+`,
/// `&`), or `None` for a constraint not understood.
fn placement(letters: &str, index: usize) -> Option<Placement> {
    if let Some(condition) = letters.strip_prefix("@cc") {
        return Some(Placement::Flag(match condition {
            "z" | "e" => Condition::Zero,
            "nz" | "ne" => Condition::NotZero,
            "c" | "b" => Condition::Carry,
            "nc" | "ae" => Condition::NotCarry,
            _ => return None,
        }));
    }
    if !letters.is_empty() && letters.chars().all(|c| c.is_ascii_digit()) {
        return letters.parse().ok().map(Placement::Matching);
    }
    if let Some(register) = named_register(letters) {
        return Some(Placement::Register(register.to_string()));
    }
    if letters.chars().any(|c| "rqQRgiZenK".contains(c)) {
        return Some(Placement::Register(format!("%{index}")));
    }
    letters.contains('m').then_some(Placement::Memory)
}

/// A string literal of the syntax without its quotes.
fn literal(parts: &[String]) -> String {
    parts.concat().replace('"', "")
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Extended inline assembly with operands, on x86: see the module's
    /// documentation.
    pub(in crate::frontend) fn asm_with_operands(
        &mut self,
        asm: &'a GnuExtendedAsmStatement,
        span: Span,
    ) -> LResult<()> {
        let text = literal(&asm.template.node)
            .replace("\\n", "\n")
            .replace("\\t", " ");
        let declared: Vec<(&'a Node<GnuAsmOperand>, bool)> = asm
            .outputs
            .iter()
            .map(|operand| (operand, true))
            .chain(asm.inputs.iter().map(|operand| (operand, false)))
            .collect();
        let mut registers = Registers::default();
        let mut operands: Vec<Operand> = Vec::new();
        // the output operands that get a register's or a flag's value
        let mut results: Vec<(LVal, Operand)> = Vec::new();
        for (index, &(operand, output)) in declared.iter().enumerate() {
            let constraint = literal(&operand.node.constraints.node);
            let letters: String = constraint
                .chars()
                .filter(|c| !matches!(c, '=' | '+' | '&' | '%' | ','))
                .collect();
            let Some(place) = placement(&letters, index) else {
                return self.lw.refuse(
                    operand.node.constraints.span,
                    format!("the inline assembly constraint `\"{constraint}\"`"),
                    Some(ASM_HELP),
                );
            };
            let expression = &operand.node.variable_name;
            let in_out = constraint.starts_with('+');
            let kind = match place {
                Placement::Memory => Operand::Memory(self.lvalue(expression)?),
                Placement::Flag(condition) if output => Operand::Flag(condition),
                Placement::Register(name) => {
                    if output {
                        let target = self.lvalue(expression)?;
                        if in_out {
                            let value = self.load(target.clone(), expression.span)?;
                            self.set_register(&mut registers, &name, value);
                        }
                        results.push((target, Operand::Register(name.clone())));
                    } else {
                        let value = self.rvalue(expression)?;
                        self.set_register(&mut registers, &name, value);
                    }
                    Operand::Register(name)
                }
                Placement::Matching(tied) if !output => match operands.get(tied) {
                    Some(Operand::Register(name)) => {
                        let name = name.clone();
                        let value = self.rvalue(expression)?;
                        self.set_register(&mut registers, &name, value);
                        Operand::Register(name)
                    }
                    _ => {
                        return self.lw.refuse(
                            operand.node.constraints.span,
                            format!("the inline assembly constraint `\"{constraint}\"`"),
                            Some("a digit must name an earlier register operand"),
                        );
                    }
                },
                Placement::Flag(_) | Placement::Matching(_) => {
                    return self.lw.refuse(
                        operand.node.constraints.span,
                        format!("the inline assembly constraint `\"{constraint}\"` of an input"),
                        Some(ASM_HELP),
                    );
                }
            };
            if let Operand::Flag(_) = kind {
                results.push((self.lvalue(expression)?, kind.clone()));
            }
            operands.push(kind);
        }
        let names: Vec<Option<&str>> = declared
            .iter()
            .map(|(operand, _)| {
                operand
                    .node
                    .symbolic_name
                    .as_ref()
                    .map(|name| name.node.name.as_str())
            })
            .collect();
        for instruction in asm_instructions(&text) {
            match asm_fence(&instruction.replace("%%", "%")) {
                Some(Some(kind)) => self.emit(StmtKind::Fence(kind)),
                Some(None) => {}
                None => {
                    self.asm_instruction(&instruction, &operands, &names, &mut registers, span)?
                }
            }
        }
        for (target, result) in results {
            let value = match result {
                Operand::Register(name) => registers.values.get(&name).cloned(),
                Operand::Flag(condition) => flag(&registers, condition).map(|expr| Val {
                    expr,
                    ty: CType::INT,
                }),
                Operand::Memory(_) => None,
            };
            let Some(value) = value else {
                return self.lw.refuse(
                    span,
                    "inline assembly whose output operand no instruction sets",
                    Some(ASM_HELP),
                );
            };
            self.store(&target, value, span)?;
        }
        Ok(())
    }

    /// Gives register `name` the value `value`, saved where it is now.
    fn set_register(&mut self, registers: &mut Registers, name: &str, value: Val) {
        let expr = self.save(value.expr, &value.ty);
        registers
            .values
            .insert(name.to_string(), Val { expr, ty: value.ty });
    }

    /// The argument `text` of an instruction (`%2`, `%w2`, `%[name]`,
    /// `%%rax`, `$1`, `(%0)`), or `None` for one not understood.
    fn asm_argument(
        &self,
        text: &str,
        operands: &[Operand],
        names: &[Option<&str>],
    ) -> Option<Argument> {
        if let Some(number) = text.strip_prefix('$') {
            return match number.strip_prefix("0x") {
                Some(hex) => i64::from_str_radix(hex, 16).ok(),
                None => number.parse().ok(),
            }
            .map(Argument::Immediate);
        }
        if let Some(register) = text.strip_prefix("%%") {
            return hard_register(register).map(|r| Argument::Register(r.to_string()));
        }
        if text.starts_with('(') || text.starts_with("0(") {
            return Some(Argument::Indirect);
        }
        let reference = text.strip_prefix('%')?;
        let index = match reference.strip_prefix('[') {
            Some(name) => {
                let name = name.strip_suffix(']')?;
                names
                    .iter()
                    .position(|n| n.is_some_and(|n| n.eq_ignore_ascii_case(name)))?
            }
            None => reference
                .trim_start_matches(['b', 'w', 'k', 'q', 'h'])
                .parse()
                .ok()?,
        };
        match operands.get(index)? {
            Operand::Memory(lvalue) => Some(Argument::Memory(lvalue.clone())),
            Operand::Register(name) => Some(Argument::Register(name.clone())),
            Operand::Flag(_) => None,
        }
    }

    /// One instruction of the template (`lock cmpxchgl %2, %0`).
    fn asm_instruction(
        &mut self,
        instruction: &str,
        operands: &[Operand],
        names: &[Option<&str>],
        registers: &mut Registers,
        span: Span,
    ) -> LResult<()> {
        let refuse = |f: &Self| {
            f.lw.refuse::<()>(
                span,
                format!("the inline assembly instruction `{instruction}`"),
                Some(ASM_HELP),
            )
        };
        let (locked, rest) = match instruction.strip_prefix("lock ") {
            Some(rest) => (true, rest),
            None => (false, instruction),
        };
        let (word, arguments) = rest.split_once(' ').unwrap_or((rest, ""));
        let Some(base) = mnemonic(word) else {
            return refuse(self);
        };
        let mut parsed = Vec::new();
        for text in arguments
            .split(',')
            .map(str::trim)
            .filter(|text| !text.is_empty())
        {
            match self.asm_argument(text, operands, names) {
                Some(argument) => parsed.push(argument),
                None => return refuse(self),
            }
        }
        match (base, parsed.as_slice()) {
            ("prefetchw" | "prefetcht0" | "prefetchnta" | "prefetch", [Argument::Indirect]) => {
                Ok(())
            }
            ("mov", [source, Argument::Register(target)]) => {
                let value = self.asm_value(source, registers, span)?;
                self.set_register(registers, target, value);
                Ok(())
            }
            ("mov", [source, Argument::Memory(target)]) => {
                let value = self.asm_value(source, registers, span)?;
                self.store(target, value, span)
            }
            ("xchg", [Argument::Register(register), Argument::Memory(memory)])
            | ("xchg", [Argument::Memory(memory), Argument::Register(register)]) => {
                let value =
                    self.asm_value(&Argument::Register(register.clone()), registers, span)?;
                let old = self.asm_exchange(memory, value, span)?;
                self.set_register(registers, register, old);
                Ok(())
            }
            ("cmpxchg", [source, Argument::Memory(memory)]) if locked => {
                let expected =
                    self.asm_value(&Argument::Register("rax".into()), registers, span)?;
                let desired = self.asm_value(source, registers, span)?;
                let (old, swapped) = self.asm_compare_exchange(memory, expected, desired, span)?;
                registers.zero = Some(swapped);
                self.set_register(registers, "rax", old);
                Ok(())
            }
            ("xadd", [Argument::Register(register), Argument::Memory(memory)]) => {
                let operand =
                    self.asm_value(&Argument::Register(register.clone()), registers, span)?;
                let fetch = (RmwOp::FetchAdd as RmwConstructor, BinaryOp::Add);
                let (old, new) = self.asm_fetch(memory, fetch, operand, locked, span)?;
                registers.zero = Some(is_zero(new.expr));
                self.set_register(registers, register, old);
                Ok(())
            }
            ("inc" | "dec", [Argument::Memory(memory)]) => {
                let fetch = match base {
                    "inc" => (RmwOp::FetchAdd as RmwConstructor, BinaryOp::Add),
                    _ => (RmwOp::FetchSub as RmwConstructor, BinaryOp::Sub),
                };
                let (_, new) = self.asm_fetch(memory, fetch, Val::int(1), locked, span)?;
                registers.zero = Some(is_zero(new.expr));
                Ok(())
            }
            ("add" | "sub" | "and" | "or" | "xor", [source, Argument::Memory(memory)]) => {
                let operand = self.asm_value(source, registers, span)?;
                let fetch = match super::atomics::fetch_op(base) {
                    Some(fetch) => fetch,
                    None => return refuse(self),
                };
                let (_, new) = self.asm_fetch(memory, fetch, operand, locked, span)?;
                registers.zero = Some(is_zero(new.expr));
                Ok(())
            }
            ("not" | "neg", [Argument::Memory(memory)]) => {
                let negate = base == "neg";
                let (old, new) = self.asm_update(memory, locked, span, |old| match negate {
                    true => binary(BinaryOp::Sub, Expr::Const(0), old),
                    false => Expr::Unary(UnaryOp::BitNot, Box::new(old)),
                })?;
                if negate {
                    registers.zero = Some(is_zero(new.expr));
                    registers.carry = Some(binary(BinaryOp::Ne, old.expr, Expr::Const(0)));
                }
                Ok(())
            }
            ("bts" | "btr" | "btc", [bit, Argument::Memory(memory)]) => {
                let bit = self.asm_value(bit, registers, span)?;
                let bit = self.save(bit.expr, &bit.ty);
                let mask = binary(BinaryOp::Shl, Expr::Const(1), bit.clone());
                let (old, _) = self.asm_update(memory, locked, span, |old| match base {
                    "bts" => binary(BinaryOp::BitOr, old, mask),
                    "btr" => binary(
                        BinaryOp::BitAnd,
                        old,
                        Expr::Unary(UnaryOp::BitNot, Box::new(mask)),
                    ),
                    _ => binary(BinaryOp::BitXor, old, mask),
                })?;
                let shifted = binary(BinaryOp::Shr, old.expr, bit);
                registers.carry = Some(binary(BinaryOp::BitAnd, shifted, Expr::Const(1)));
                Ok(())
            }
            (
                "setz" | "sete" | "setnz" | "setne" | "setc" | "setb" | "setnc" | "setae",
                [target],
            ) => {
                let condition = match base {
                    "setz" | "sete" => Condition::Zero,
                    "setnz" | "setne" => Condition::NotZero,
                    "setc" | "setb" => Condition::Carry,
                    _ => Condition::NotCarry,
                };
                let Some(value) = flag(registers, condition) else {
                    return refuse(self);
                };
                let value = Val {
                    expr: value,
                    ty: CType::INT,
                };
                match target {
                    Argument::Register(name) => {
                        self.set_register(registers, name, value);
                        Ok(())
                    }
                    Argument::Memory(memory) => self.store(memory, value, span),
                    _ => refuse(self),
                }
            }
            _ => refuse(self),
        }
    }

    /// The value an instruction's argument gives.
    fn asm_value(
        &mut self,
        argument: &Argument,
        registers: &Registers,
        span: Span,
    ) -> LResult<Val> {
        match argument {
            Argument::Immediate(value) => Ok(Val::int(*value)),
            Argument::Register(name) => match registers.values.get(name) {
                Some(value) => Ok(value.clone()),
                None => self.lw.refuse(
                    span,
                    format!("inline assembly that reads the register `{name}` before it is given a value"),
                    Some("give the register an input operand"),
                ),
            },
            Argument::Memory(memory) => self.load(memory.clone(), span),
            Argument::Indirect => self.lw.refuse(span, "an indirect memory argument here", Some(ASM_HELP)),
        }
    }

    /// The address and type of a memory argument a read-modify-write
    /// works on: a scalar of shared memory that is no floating value.
    fn asm_shared_scalar(&self, memory: &LVal, span: Span) -> LResult<Option<(Expr, CType)>> {
        match memory {
            LVal::Shared { address, ty, .. } if ty.is_scalar() => match ty {
                CType::Float(_) => self.lw.refuse(
                    span,
                    "inline assembly that updates a floating value",
                    Some("use C11's atomic_exchange or atomic_compare_exchange_* on an `_Atomic` object"),
                ),
                _ => Ok(Some((address.clone(), ty.clone()))),
            },
            LVal::Shared { .. } => self.lw.refuse(span, "inline assembly on memory that is not a scalar", Some(ASM_HELP)),
            LVal::Private(..) => Ok(None),
        }
    }

    /// `xchg`: the old value of `memory`, which gets `value` atomically.
    fn asm_exchange(&mut self, memory: &LVal, value: Val, span: Span) -> LResult<Val> {
        let Some((address, ty)) = self.asm_shared_scalar(memory, span)? else {
            let old = self.load(memory.clone(), span)?;
            let old = Val {
                expr: self.save(old.expr, &old.ty),
                ty: old.ty,
            };
            self.store(memory, value, span)?;
            return Ok(old);
        };
        let value = self.convert(value, &ty, span)?;
        let value = self.cut_off_unless_shared_memory_holds(value, &ty);
        let old = self.temp(&memory_type(&ty));
        self.note_access_type(&ty);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(old)),
            address,
            op: RmwOp::Exchange(value),
        });
        Ok(Val {
            expr: self.value_from_memory(Expr::Load(Place::Local(old)), &ty),
            ty,
        })
    }

    /// `lock cmpxchg`: the old value of `memory` and whether it was
    /// `expected` (then `memory` got `desired`), atomically.
    fn asm_compare_exchange(
        &mut self,
        memory: &LVal,
        expected: Val,
        desired: Val,
        span: Span,
    ) -> LResult<(Val, Expr)> {
        let Some((address, ty)) = self.asm_shared_scalar(memory, span)? else {
            return self.lw.refuse(
                span,
                "`lock cmpxchg` on private data",
                Some("compare and swap an object other threads can reach"),
            );
        };
        let expected = self.convert(expected, &ty, span)?;
        let expected = self.save(expected, &ty);
        let desired = self.convert(desired, &ty, span)?;
        let result = self.emit_compare_exchange(address, expected, desired, &ty);
        let swapped = self.save(result.succeeded, &CType::INT);
        Ok((
            Val {
                expr: result.old,
                ty,
            },
            swapped,
        ))
    }

    /// `lock xadd`, `lock add`, `lock inc`, ...: the old and the new value
    /// of `memory`, updated by `operation` with `operand`; atomically when
    /// `locked`, else a load and a store (x86 without `lock`).
    fn asm_fetch(
        &mut self,
        memory: &LVal,
        (operation, operator): (RmwConstructor, BinaryOp),
        operand: Val,
        locked: bool,
        span: Span,
    ) -> LResult<(Val, Val)> {
        let shared = self.asm_shared_scalar(memory, span)?;
        let (address, ty) = match shared {
            Some((address, ty)) if locked && !self.wider_than_shared_memory(&ty) => (address, ty),
            _ => {
                let operand = Val {
                    expr: self.save(operand.expr, &operand.ty),
                    ty: operand.ty,
                };
                return self.asm_update(memory, locked, span, |old| {
                    binary(operator, old, operand.expr)
                });
            }
        };
        let operand = self.convert(operand, &ty, span)?;
        let operand = self.save(operand, &ty);
        let old = self.temp(&ty);
        self.note_access_type(&ty);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(old)),
            address,
            op: operation(operand.clone()),
        });
        let old = Val {
            expr: Expr::Load(Place::Local(old)),
            ty: ty.clone(),
        };
        let new = Val {
            expr: binary(operator, old.expr.clone(), operand),
            ty: ty.clone(),
        };
        let new = self.convert(new, &ty, span)?;
        let new = self.save(new, &ty);
        Ok((old, Val { expr: new, ty }))
    }

    /// The old and new value of `memory`, which gets `update(old)` in its
    /// type: atomically (a compare-and-swap of a guessed old value) when
    /// `locked`, else a load and a store (x86 without `lock`, or private
    /// data).
    fn asm_update(
        &mut self,
        memory: &LVal,
        locked: bool,
        span: Span,
        update: impl FnOnce(Expr) -> Expr,
    ) -> LResult<(Val, Val)> {
        match self.asm_shared_scalar(memory, span)? {
            Some((address, ty)) if locked => self.atomic_update(address, &ty, span, |_, old| {
                Ok(Val {
                    expr: update(old.expr),
                    ty: old.ty,
                })
            }),
            _ => {
                let old = self.load(memory.clone(), span)?;
                let old = Val {
                    expr: self.save(old.expr, &old.ty),
                    ty: old.ty,
                };
                let ty = memory.ty().clone();
                let new = Val {
                    expr: update(old.expr.clone()),
                    ty: ty.clone(),
                };
                let new = self.convert(new, &ty, span)?;
                let new = Val {
                    expr: self.save(new, &ty),
                    ty,
                };
                self.store(memory, new.clone(), span)?;
                Ok((old, new))
            }
        }
    }
}

/// Whether a value is zero, as the zero flag after it.
fn is_zero(value: Expr) -> Expr {
    binary(BinaryOp::Eq, value, Expr::Const(0))
}

/// The value (0 or 1) of a condition of the flags, if an instruction set
/// the flag.
fn flag(registers: &Registers, condition: Condition) -> Option<Expr> {
    let not = |flag: &Expr| binary(BinaryOp::Eq, flag.clone(), Expr::Const(0));
    match condition {
        Condition::Zero => registers.zero.clone(),
        Condition::NotZero => registers.zero.as_ref().map(not),
        Condition::Carry => registers.carry.clone(),
        Condition::NotCarry => registers.carry.as_ref().map(not),
    }
}
