//! The property table of a translation: every property the printed program
//! checks, by the id CBMC gives it (`function.assertion.n`: the n-th
//! `__CPROVER_assert` of that C function), with what kind of property it
//! is, the statement it belongs to and the thread whose copy holds it. The
//! printer fills it as it writes the assertions; the report reads kinds,
//! origins and threads from it instead of reading them back out of the
//! assertion texts.

use crate::ir::OriginId;
use std::collections::BTreeMap;

/// The descriptions of the reachability properties (`verify::reach`): the
/// `(__CPROVER_assert)` marks of places that a run with every assertion
/// holding may reach.
/// The property that fails when an execution reaches the end of `main`
/// (or `exit`, `abort`).
pub const REACH_END_OF_MAIN: &str = "lazysma reach: the end of main";
/// The property, followed by the statement, that fails when an execution
/// reaches an allocation asking for more than a heap block holds.
pub const REACH_BLOCK_SIZE: &str = "lazysma reach: heap block size at ";
/// The same when the allocation finds every heap block used.
pub const REACH_BLOCKS_USED: &str = "lazysma reach: heap blocks at ";
/// The property, followed by the statement, that fails when an execution
/// reaches an access through a pointer outside the objects it may point to
/// (or past the requested part of a heap block) without `--pointer-check`,
/// where the execution is cut off.
pub const REACH_POINTER_CUT: &str = "lazysma reach: pointer cut off at ";

/// What kind of property fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyKind {
    /// `assert`, `__VERIFIER_assert`, `__CPROVER_assert`.
    Assertion,
    /// An index of a shared array outside its bounds.
    ArrayIndexOutOfBounds,
    /// An access through a null pointer.
    NullDereference,
    /// An access through a pointer outside every object it may point into.
    PointerOutsideObject,
    /// An access to a heap block after its `free`.
    UseAfterFree,
    /// A second `free` of a heap block.
    DoubleFree,
    /// A `free` of a pointer that no `malloc` returned.
    InvalidFree,
    /// `pthread_mutex_unlock` by a thread that does not hold the mutex.
    UnlockNotHeld,
    /// A `/` or `%` by zero.
    DivisionByZero,
    /// A call through a pointer to no function.
    InvalidFunctionPointer,
    /// `reach_error()`, `__VERIFIER_error()` is reached.
    ErrorCall,
    /// `--unwinding-assertions`: a loop runs longer than `--unwind`.
    UnwindingAssertion,
    /// `lazysma robust`: an execution's reads-from is one no SC execution
    /// has (found by the native engine; no assertion of the program).
    NotRobust,
    /// `deadlock`: no unfinished thread can move, each waiting for ever on
    /// a mutex, a join or a synchronisation object (found by the native
    /// engine; no assertion of the program).
    Deadlock,
    /// `liveness`: a thread spins in an await loop that nothing will let
    /// out, every other thread finished or waiting for ever (found by the
    /// native engine; no assertion of the program).
    Liveness,
}

impl PropertyKind {
    /// What happens when a property of this kind fails, in words.
    pub fn failure(self) -> &'static str {
        match self {
            PropertyKind::Assertion => "the assertion does not hold",
            PropertyKind::ArrayIndexOutOfBounds => "array index out of bounds",
            PropertyKind::NullDereference => "a null pointer is dereferenced",
            PropertyKind::PointerOutsideObject => "a pointer outside its object is dereferenced",
            PropertyKind::UseAfterFree => "freed memory is used",
            PropertyKind::DoubleFree => "a heap block is freed twice",
            PropertyKind::InvalidFree => "a pointer malloc did not return is freed",
            PropertyKind::UnlockNotHeld => "a thread unlocks a mutex it does not hold",
            PropertyKind::DivisionByZero => "a division by zero",
            PropertyKind::InvalidFunctionPointer => "a call through a pointer to no function",
            PropertyKind::ErrorCall => "the error call is reached",
            PropertyKind::UnwindingAssertion => "the loop runs longer than --unwind allows",
            PropertyKind::NotRobust => {
                "the program's reads observe what no sequentially consistent execution can"
            }
            PropertyKind::Deadlock => "deadlock: no thread can move, each waits for ever",
            PropertyKind::Liveness => "a wait never ends: a thread spins in an await loop for ever",
        }
    }

    /// Whether the property is violated by the state an execution ends
    /// in (a deadlock, a wait that never ends) rather than by a statement.
    pub fn is_endless_wait(self) -> bool {
        matches!(self, PropertyKind::Deadlock | PropertyKind::Liveness)
    }

    /// The kind of the property a statement's own assertion checks (`None`
    /// for the end of the program, which is no property of the program).
    pub fn of_assertion(kind: crate::ir::PropertyKind) -> Option<PropertyKind> {
        match kind {
            crate::ir::PropertyKind::Assertion => Some(PropertyKind::Assertion),
            crate::ir::PropertyKind::ErrorCall => Some(PropertyKind::ErrorCall),
            crate::ir::PropertyKind::UnwindingAssertion => Some(PropertyKind::UnwindingAssertion),
            crate::ir::PropertyKind::DivisionByZero => Some(PropertyKind::DivisionByZero),
            crate::ir::PropertyKind::InvalidFunctionPointer => {
                Some(PropertyKind::InvalidFunctionPointer)
            }
            crate::ir::PropertyKind::ProgramEnd => None,
        }
    }

    /// The kind of the property a memory access violates, by the words
    /// that open its description after `file:line: ` (the constants of
    /// [`crate::ir`]: the printer names the property by them).
    pub fn of_access_check(words: &str) -> Option<PropertyKind> {
        [
            (
                crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS,
                PropertyKind::ArrayIndexOutOfBounds,
            ),
            (crate::ir::NULL_DEREFERENCE, PropertyKind::NullDereference),
            (
                crate::ir::POINTER_OUTSIDE_OBJECT,
                PropertyKind::PointerOutsideObject,
            ),
            (crate::ir::USE_AFTER_FREE, PropertyKind::UseAfterFree),
            (crate::ir::DOUBLE_FREE, PropertyKind::DoubleFree),
            (crate::ir::INVALID_FREE, PropertyKind::InvalidFree),
        ]
        .into_iter()
        .find_map(|(known, kind)| (known == words).then_some(kind))
    }
}

/// One property of the printed program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub kind: PropertyKind,
    /// The statement the property belongs to (an index of
    /// [`TranslationMap::origins`](super::TranslationMap::origins)).
    pub origin: Option<OriginId>,
    /// The thread slot whose copy of the code holds the assertion.
    pub thread: usize,
    /// The C function of the printed program that holds it.
    pub function: String,
    /// The description the assertion carries (CBMC shows it).
    pub description: String,
}

/// The properties of a printed program, by CBMC's property id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropertyTable {
    properties: BTreeMap<String, Property>,
    /// How many assertions each C function holds so far.
    counts: BTreeMap<String, u32>,
}

impl PropertyTable {
    /// Notes the next `__CPROVER_assert` of `property.function` (in the
    /// order CBMC numbers them: the order of the text) and returns its id.
    pub fn add(&mut self, property: Property) -> String {
        let count = self.counts.entry(property.function.clone()).or_insert(0);
        *count += 1;
        let id = format!("{}.assertion.{count}", property.function);
        self.properties.insert(id.clone(), property);
        id
    }

    /// The property CBMC names `id`.
    pub fn get(&self, id: &str) -> Option<&Property> {
        self.properties.get(id)
    }

    /// The property of C function `function` with this exact description:
    /// how an engine that does not number the assertions (the native one)
    /// names a property it found violated.
    pub fn find(&self, function: &str, description: &str) -> Option<(&String, &Property)> {
        self.properties.iter().find(|(_, property)| {
            property.function == function && property.description == description
        })
    }

    /// Every property with its id, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Property)> {
        self.properties.iter()
    }

    pub fn len(&self) -> usize {
        self.properties.len()
    }

    pub fn is_empty(&self) -> bool {
        self.properties.is_empty()
    }
}
