//! Dispatch of shared accesses at computed addresses: when an address
//! provably lies in one small static object, the access becomes a chain of
//! comparisons selecting SMA calls at constant locations, so that CBMC never
//! indexes the SMA's per-location arrays symbolically; an address outside
//! the object is reported as an out-of-bounds access.

use crate::ir::{BinaryOp, Expr, Ty};
use crate::passes::MemoryLayout;

/// Largest object, in scalars, whose accesses are dispatched; accesses to
/// larger objects keep the generic call with a symbolic location.
pub const MAX_DISPATCH_SCALARS: u32 = 64;

/// The constant location that pointer arithmetic `address` starts from:
/// the frontend writes `a[e]` as `base + e*stride` (plus field offsets)
/// with the pointer as the left operand.
fn arithmetic_base(address: &Expr) -> Option<i64> {
    match address {
        Expr::Const(c) => Some(*c),
        Expr::Binary(BinaryOp::Add | BinaryOp::Sub, pointer, _) => arithmetic_base(pointer),
        Expr::Cast(Ty::Pointer(_), pointer) => arithmetic_base(pointer),
        Expr::Cast(Ty::Int { bits, .. }, pointer) if *bits >= 32 => arithmetic_base(pointer),
        _ => None,
    }
}

/// The object `(first, scalars)` an access at the computed `address` is
/// dispatched over; `None` for a constant address, an address whose object
/// is unknown (pointers, heap) or an object above the cutoff.
pub fn dispatch_object(address: &Expr, memory: &MemoryLayout) -> Option<(u32, u32)> {
    if matches!(address, Expr::Const(_)) {
        return None;
    }
    let base = arithmetic_base(address)?;
    if base <= 0 || base >= i64::from(memory.heap_base) {
        return None;
    }
    let (first, scalars) = memory.object_of(base)?;
    (scalars <= MAX_DISPATCH_SCALARS).then_some((first, scalars))
}

/// Name of the temporary holding a dispatched address.
pub const ADDRESS_TEMPORARY: &str = "lazy_address";

/// The C text of the dispatch: `address` is evaluated once, `call(k)` is the
/// access at constant location `k`, `out_of_bounds` the property description.
pub fn dispatch_text(
    address: &str,
    (first, scalars): (u32, u32),
    call: &dyn Fn(&str) -> String,
    out_of_bounds: &str,
    indent: &str,
) -> String {
    let mut text = format!("{{ long long {ADDRESS_TEMPORARY} = {address};\n");
    for k in first..first.saturating_add(scalars) {
        let keyword = if k == first { "if" } else { "else if" };
        text.push_str(&format!(
            "{indent}  {keyword} ({ADDRESS_TEMPORARY} == {k}) {}\n",
            call(&k.to_string())
        ));
    }
    text.push_str(&format!(
        "{indent}  else {{ __CPROVER_assert(0, {out_of_bounds}); __CPROVER_assume(0); }}\n{indent}}}"
    ));
    text
}
