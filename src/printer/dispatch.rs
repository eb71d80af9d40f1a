//! Dispatch of shared accesses at computed addresses: when an address
//! provably lies in one small static object, the access becomes a chain of
//! comparisons selecting SMA calls at constant locations, so that CBMC never
//! indexes the SMA's per-location arrays symbolically; an address outside
//! the object is reported as an out-of-bounds access.

/// Name of the temporary holding a dispatched address.
pub const ADDRESS_TEMPORARY: &str = "lazy_address";

/// The C text of the dispatch: `address` is evaluated once, `call(k)` is the
/// access at constant location `k`, `out_of_bounds` the property description.
/// An address outside the object fails the property first; then each
/// location gets its own `if`, not an `else if` chain: exactly one of them
/// runs either way, and CBMC merges after each `if` only the state of that
/// one location, where a chain merges every location's state again at
/// every level it is nested in (quadratic in the object's size).
pub fn dispatch_text(
    address: &str,
    (first, scalars): (u32, u32),
    call: &dyn Fn(&str) -> String,
    out_of_bounds: &str,
    indent: &str,
) -> String {
    let end = first.saturating_add(scalars);
    let mut text = bounds_check(address, (first, scalars), out_of_bounds, indent);
    for k in first..end {
        text.push_str(&format!(
            "{indent}  if ({ADDRESS_TEMPORARY} == {k}) {}\n",
            call(&k.to_string())
        ));
    }
    text.push_str(&format!("{indent}}}"));
    text
}

/// The C text of an access at a computed address in one object without a
/// dispatch: the same bounds check, then `call` once, at the address itself
/// (for an SMA whose state at a location is a memory cell indexed by the
/// location as a value,
/// [`crate::options::SmaImplementation::accesses_computed_addresses_in_place`]).
pub fn checked_text(
    address: &str,
    object: (u32, u32),
    call: &str,
    out_of_bounds: &str,
    indent: &str,
) -> String {
    let mut text = bounds_check(address, object, out_of_bounds, indent);
    text.push_str(&format!("{indent}  {call}\n{indent}}}"));
    text
}

/// Opens the block that holds the address, and fails the property of an
/// address outside the object.
fn bounds_check(
    address: &str,
    (first, scalars): (u32, u32),
    out_of_bounds: &str,
    indent: &str,
) -> String {
    let end = first.saturating_add(scalars);
    let mut text = format!("{{ long long {ADDRESS_TEMPORARY} = {address};\n");
    text.push_str(&format!(
        "{indent}  if ({ADDRESS_TEMPORARY} < {first} || {ADDRESS_TEMPORARY} >= {end}) {{ __CPROVER_assert(0, {out_of_bounds}); __CPROVER_assume(0); }}\n"
    ));
    text
}
