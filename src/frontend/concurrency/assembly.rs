//! Inline assembly: the fences and the instructions without a memory
//! effect that lazysma understands; assembly with operands is lowered by
//! `asm_operands`; anything else is refused.

use crate::frontend::lower::{FnLowerer, LResult};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::Span;

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Inline assembly: fences and the instructions without an effect on
    /// memory (`pause`, `nop`, ...) are accepted, each instruction of the
    /// template in turn; anything else is refused, since its effect would
    /// be lost.
    pub fn asm(&mut self, asm: &'a AsmStatement, span: Span) -> LResult<()> {
        let template = match asm {
            AsmStatement::GnuBasic(s) => s.node.concat(),
            AsmStatement::GnuExtended(e) if !e.outputs.is_empty() || !e.inputs.is_empty() => {
                return self.asm_with_operands(e, span);
            }
            AsmStatement::GnuExtended(e) => e.template.node.concat(),
        };
        let text = template
            .replace('"', "")
            .replace("%%", "%")
            .replace("\\n", "\n")
            .replace("\\t", " ");
        for instruction in asm_instructions(&text) {
            match asm_fence(&instruction) {
                Some(Some(kind)) => self.emit(StmtKind::Fence(kind)),
                Some(None) => {}
                None => {
                    return self.lw.refuse(
                        span,
                        format!("the inline assembly instruction `{instruction}`"),
                        Some(ASM_HELP),
                    );
                }
            }
        }
        Ok(())
    }
}

pub(in crate::frontend) const ASM_HELP: &str = "understood: fences (mfence, sync, lwsync, sfence, `lock; addl $0,0(%rsp)`), instructions without a memory effect (pause, nop, lfence, isync, prefetch), and x86's atomics with operands in memory (`m`) and registers (`r`, `q`, `a`, ...): `lock cmpxchg`, `lock xadd`, `xchg`, `lock inc/dec/add/sub/and/or/xor/not/neg/bts/btr/btc`, `mov`, `setz`/`setc` and `=@ccz` outputs; write other atomic operations with __atomic or C11 builtins";

/// The instructions of an assembly template (separated by `;` or new
/// lines), lower case, each prefix (`lock`) joined to its instruction.
pub(in crate::frontend) fn asm_instructions(text: &str) -> Vec<String> {
    let mut instructions: Vec<String> = Vec::new();
    let mut prefix = String::new();
    for part in text.split([';', '\n']) {
        let words: Vec<String> = part
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        if words.is_empty() {
            continue;
        }
        if words == ["lock"] {
            prefix = "lock ".to_string();
            continue;
        }
        instructions.push(format!("{prefix}{}", words.join(" ")));
        prefix.clear();
    }
    if !prefix.is_empty() {
        instructions.push(prefix.trim().to_string());
    }
    instructions
}

/// The fence an instruction is (`Some(None)`: none, it has no effect on
/// memory), or `None` for an instruction with another effect.
pub(in crate::frontend) fn asm_fence(instruction: &str) -> Option<Option<FenceKind>> {
    let words: Vec<&str> = instruction.split_whitespace().collect();
    match words.as_slice() {
        ["mfence" | "sync" | "hwsync"] => Some(Some(FenceKind::Full)),
        ["lwsync" | "sfence" | "eieio"] => Some(Some(FenceKind::StoreStore)),
        ["lfence" | "nop" | "isync" | "pause" | "yield"] | ["rep", "nop"] => Some(None),
        // x86's `smp_mb`: a locked no-op on the stack top drains the buffer
        ["lock", operation, operands @ ..] => {
            let operands: String = operands.concat();
            let no_op = matches!(*operation, "add" | "addl" | "addq" | "or" | "orl" | "orq")
                && matches!(
                    operands.as_str(),
                    "$0,0(%rsp)" | "$0,(%rsp)" | "$0,0(%esp)" | "$0,(%esp)"
                );
            no_op.then_some(Some(FenceKind::Full))
        }
        _ => None,
    }
}
