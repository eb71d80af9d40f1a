//! The check of accesses through converted pointers: memory is made of
//! whole scalars here (one location, one scalar), so an access must read
//! or write the whole scalar it reaches. The frontend refuses a cast
//! between pointers to scalars of different sizes, but a pointer that
//! passes through `void *` or an integer comes back as any type
//! (`*(unsigned char *)p = 0xff` with `p` pointing to an `int`). Every
//! access through a pointer to a type that the program makes by such a
//! conversion ([`PointerAccess::checked`]) is compared, with the
//! points-to facts of the program before constant addresses are folded
//! (so that each access still names its pointer), with the byte size of
//! every static location it may reach; a difference, an access that may
//! reach any location, or one that may leave the object its pointer
//! points into (onto struct members left out of shared memory as
//! padding, or past the object) refuses the program at the access.
//! Where the analysis knows a location only as part of its object (after
//! an offset or a bit operation it does not follow), it cannot tell the
//! scalars of a struct apart: such a location differs only if none of
//! those the access may reach has its size. Heap blocks are untyped: an
//! access of any one size into them is what the block holds.
//! Where the program converts no pointer to an integer, a constant stored
//! as an integer of any width or a scalar narrower than a pointer
//! (`atomic_store(&n->locked, 1)`, a ring's `size_t` size) is a number
//! there, not the address of whichever object is at location 1.
//!
//! The frontend gave each access through a pointer a statement id of its
//! own; this pass gives it back its statement's, so that nothing after it
//! sees the difference.

use super::points_to::{Numbers, PointsTo, points_to_with_numbers};
use super::value_types::ValueKind;
use super::{SeqStmt, SeqThread, SequentialProgram, diagnostic_at};
use crate::diagnostics::Diagnostic;
use crate::ir::{BinaryOp, Expr, Local, LocalId, OriginId, PointerAccess, Program, Runs, Ty};
use std::collections::{BTreeSet, HashMap};

/// The pointer an access at `address` goes through, before the offsets
/// added to it (`p` of `p + 8`, of `p + i * 4`): the front end puts the
/// pointer first.
fn pointer_of(address: &Expr) -> &Expr {
    match address {
        Expr::Binary(BinaryOp::Add | BinaryOp::Sub, pointer, _) => pointer_of(pointer),
        address => address,
    }
}

/// The byte size of a scalar of type `ty` as gcc lays it out on x86-64
/// (0 for no scalar).
pub fn scalar_bytes(ty: &Ty) -> u32 {
    match ty {
        Ty::Bool => 1,
        Ty::Int { bits, .. } | Ty::Float { bits } => u32::from(*bits).div_ceil(8),
        Ty::Pointer(_) | Ty::FunctionPointer | Ty::ThreadHandle => 8,
        Ty::Void | Ty::Array(..) | Ty::Struct(_) => 0,
    }
}

/// The static locations, by the byte sizes of their scalars
/// (`location_bytes`, 0 where none is known), whose scalar is narrower
/// than a pointer.
fn narrow_locations(location_bytes: &Runs<u32>) -> Runs<bool> {
    let pointer = scalar_bytes(&Ty::Pointer(Box::new(Ty::Void)));
    location_bytes.map(|&bytes| bytes > 0 && bytes < pointer)
}

/// The static locations, by their value `kinds`, that hold integers of
/// any width (a `size_t` counter beside the slots of a ring).
fn integer_locations(kinds: &Runs<ValueKind>) -> Runs<bool> {
    kinds.map(|kind| matches!(kind, ValueKind::Signed | ValueKind::Unsigned { .. }))
}

/// The private variables of `threads` that the program declares as
/// integers, by thread slot (the frontend's temporaries left out: some
/// hold values of no C type, such as a copied struct's scalars).
fn integer_variables(threads: &[SeqThread]) -> BTreeSet<(usize, LocalId)> {
    threads
        .iter()
        .flat_map(|thread| {
            let integer = |local: &Local| {
                !local.temporary && !local.shared && matches!(local.ty, Ty::Int { .. } | Ty::Bool)
            };
            (thread.locals.iter().enumerate())
                .filter(move |(_, local)| integer(local))
                .map(move |(id, _)| (thread.slot, id))
        })
        .collect()
}

/// Checks every access of `sequential` through a converted pointer
/// ([`PointerAccess::checked`] in `program`) against the sizes of the
/// locations it may reach, and gives every access noted by the frontend
/// its statement's id back.
pub fn check_access_sizes(
    sequential: &mut SequentialProgram,
    program: &Program,
) -> Result<(), Box<Diagnostic>> {
    if program.pointer_accesses.is_empty() {
        return Ok(());
    }
    let accesses: HashMap<OriginId, &PointerAccess> = program
        .pointer_accesses
        .iter()
        .map(|access| (access.origin, access))
        .collect();
    // the facts of the program before constant addresses are folded into
    // its accesses, which keep the pointer each goes through; a constant
    // stored as an integer or a scalar narrower than a pointer is a number
    // (each access still has its own id here)
    let pointer = scalar_bytes(&Ty::Pointer(Box::new(Ty::Void)));
    let types = &sequential.map.value_types;
    let numbers = || match program.addresses_as_integers {
        true => Numbers::default(),
        false => Numbers {
            locations: narrow_locations(&types.location_bytes),
            integers: integer_locations(&types.locations),
            stores: program
                .pointer_accesses
                .iter()
                .filter(|access| access.integer || (1..pointer).contains(&access.bytes))
                .map(|access| access.origin)
                .collect(),
            integer_variables: integer_variables(&sequential.threads),
            integers_made_pointers: true,
        },
    };
    let facts = program
        .pointer_accesses
        .iter()
        .any(|access| access.checked)
        .then(|| points_to_with_numbers(sequential, numbers()));
    let mut threads = std::mem::take(&mut sequential.threads);
    let result = threads.iter_mut().try_for_each(|thread| {
        let slot = thread.slot;
        check_block(&mut thread.body, &mut |address, stmt| {
            let Some(access) = accesses.get(stmt) else {
                return Ok(());
            };
            if let (true, Some(facts)) = (access.checked, &facts) {
                check(sequential, facts, program, slot, address, access)?;
            }
            *stmt = access.statement;
            Ok(())
        })
    });
    sequential.threads = threads;
    result
}

/// Calls `f` with the address and statement id of every access of `body`.
fn check_block(
    body: &mut [SeqStmt],
    f: &mut impl FnMut(&Expr, &mut OriginId) -> Result<(), Box<Diagnostic>>,
) -> Result<(), Box<Diagnostic>> {
    for stmt in body {
        match stmt {
            SeqStmt::Read { address, stmt, .. }
            | SeqStmt::Write { address, stmt, .. }
            | SeqStmt::Rmw { address, stmt, .. } => f(address, stmt)?,
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                check_block(then_branch, f)?;
                check_block(else_branch, f)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks `access`, at `address` in thread `slot`, against the static
/// locations it may reach.
fn check(
    sequential: &SequentialProgram,
    points_to: &PointsTo,
    program: &Program,
    slot: usize,
    address: &Expr,
    access: &PointerAccess,
) -> Result<(), Box<Diagnostic>> {
    let bytes = access.bytes;
    let scalar = |n: u32| format!("{n} byte{}", if n == 1 { "" } else { "s" });
    let refuse = |message: String, label: &str| {
        Err(diagnostic_at(
            program,
            access.origin,
            message,
            label.into(),
            Some(
                "memory is made of whole scalars here: access an object through a pointer to its own type (convert a `void *` back to the type it was made from), or copy the value".into(),
            ),
        ))
    };
    let Some(locations) = points_to.reach(slot, address) else {
        return refuse(
            format!(
                "an access of {} through a converted pointer that may point anywhere is not supported",
                scalar(bytes)
            ),
            "this access may reach a scalar of another size",
        );
    };
    let memory = &sequential.memory;
    // the static objects the pointer points into before its offsets
    let bases: BTreeSet<u32> = points_to
        .locations(slot, pointer_of(address))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|location| memory.object_of(i64::from(location)))
        .map(|(first, _)| first)
        .collect();
    let types = &sequential.map.value_types;
    let name = |location: u32| {
        sequential
            .map
            .locations
            .name(location as usize)
            .unwrap_or_else(|| "?".to_string())
    };
    let size_of = |location: u32| {
        types
            .location_bytes
            .get(location as usize)
            .copied()
            .unwrap_or(0)
    };
    let blurred_fits = locations
        .iter()
        .any(|(&location, &exact)| !exact && size_of(location) == bytes);
    let statics = || {
        locations
            .iter()
            .filter(|(location, _)| !(memory.heap_base..memory.location_count()).contains(location))
    };
    for (&location, &exact) in statics() {
        let size = size_of(location);
        // a location the analysis knows only as part of an object (after
        // an offset or bit operation it does not follow) is one the access
        // may reach only if some such location has the access's size: the
        // analysis cannot tell the scalars of a struct apart there
        let fits = size == 0 || size == bytes || (!exact && blurred_fits);
        if !fits {
            let name = name(location);
            return refuse(
                format!(
                    "an access of {} through a converted pointer to `{name}`, a scalar of {}, is not supported",
                    scalar(bytes),
                    scalar(size)
                ),
                &format!("this access may reach `{name}`"),
            );
        }
    }
    for (&location, _) in statics() {
        let object = memory
            .object_of(i64::from(location))
            .map(|(first, _)| first);
        let outside = match object {
            None => true,
            Some(first) => !bases.is_empty() && !bases.contains(&first),
        };
        if outside {
            let object = bases.first().map_or("?".to_string(), |&first| name(first));
            return Err(diagnostic_at(
                program,
                access.origin,
                format!(
                    "an access of {} through a converted pointer outside the object it points into (`{object}`) is not supported",
                    scalar(bytes)
                ),
                "this access may leave the object".into(),
                Some(
                    "a pointer converted from another type must stay in the object it points into; the struct members that no expression names are left out of shared memory: name them, or access the object through its own type".into(),
                ),
            ));
        }
    }
    Ok(())
}
