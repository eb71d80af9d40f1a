//! The shape the parameterised check needs of a program: `main` only
//! initialises shared memory, then creates threads of one function (in a
//! loop the check reads as unbounded) and at most joins them; every
//! created thread runs the same code. Here `main` is run alone (under SC,
//! nothing else runs yet) up to its first thread creation, which gives the
//! initial shared memory the threads start from.

use super::refusal::Refusal;
use crate::ir::{FenceKind, OriginId};
use crate::passes::SeqStmt;
use crate::smc::explicit::explore::Odometer;
use crate::smc::interpreter::code::Instr;
use crate::smc::semantics::machine::{Machine, Move, Outcome, State, Status};
use crate::trace::records::RecordKind;

/// The most combinations of nondeterministic values one move may take.
pub const MAX_CHOICE_COMBINATIONS: usize = 4096;

/// The program's threads: the state they start from and the code they run.
#[derive(Debug, Clone)]
pub struct Instance {
    /// The state at main's first thread creation, main finished, the
    /// worker (slot [`Instance::worker`]) created and about to start.
    pub start: State,
    pub worker: usize,
    /// The worker's function.
    pub function: String,
    /// The loop of main that creates the threads, if the passes unrolled
    /// one (its `--unwind` bound does not apply to the parameterised check).
    pub creation_loop: Option<OriginId>,
}

/// Checks the program's shape and runs main up to its first thread
/// creation.
pub fn prepare(machine: &Machine) -> Result<Instance, Refusal> {
    let program = machine.program;
    let first_worker = program.threads.iter().find(|thread| thread.slot != 0);
    let Some(first_worker) = first_worker else {
        return Err(Refusal::new(
            "main creates no thread",
            None,
            "create the threads of one function in a loop in main",
        ));
    };
    let function = first_worker.function.clone();
    check_workers_identical(machine, &function)?;
    let creation_loop = check_main(machine, &function)?;
    let start = run_main(machine)?;
    let mut start = start;
    start.thread_mut(0).status = Status::Finished;
    for slot in 1..start.threads.len() {
        start.thread_mut(slot).status = Status::NotCreated;
    }
    let worker = first_worker.slot;
    start.thread_mut(worker).status = Status::Created;
    Ok(Instance {
        start,
        worker,
        function,
        creation_loop,
    })
}

/// Every created thread runs `function`, and all copies of it have the
/// same code (no thread identifier, no per-thread object in it).
fn check_workers_identical(machine: &Machine, function: &str) -> Result<(), Refusal> {
    let program = machine.program;
    let copies = program
        .threads
        .iter()
        .filter(|thread| thread.slot != 0)
        .count();
    if copies < 2 {
        return Err(Refusal::new(
            "the passes made one copy of the thread, so its copies cannot be compared",
            first_origin(machine, 0),
            "give --unwind 2 or more: the check compares two copies to know that the threads are identical",
        ));
    }
    let mut reference: Option<(usize, String)> = None;
    for thread in program.threads.iter().filter(|thread| thread.slot != 0) {
        let origin = first_origin(machine, thread.slot);
        if thread.function != function {
            return Err(Refusal::new(
                format!(
                    "main creates threads of two functions, `{function}` and `{}`",
                    thread.function
                ),
                origin,
                "the parameterised check takes any number of copies of one thread function; \
                 give the roles as a nondeterministic choice inside it",
            ));
        }
        let code = format!("{:?}", machine.codes[thread.slot].instrs);
        match &reference {
            None => reference = Some((thread.slot, code)),
            Some((_, first)) if *first == code => {}
            Some(_) => {
                return Err(Refusal::new(
                    format!(
                        "the copies of `{function}` differ: the thread uses its identity, its argument, \
                         or an object of its own whose address is taken"
                    ),
                    origin,
                    "the parameterised check takes identical finite-state threads; \
                     pass no argument and keep per-thread data in locals whose address is not taken",
                ));
            }
        }
    }
    Ok(())
}

fn first_origin(machine: &Machine, slot: usize) -> Option<OriginId> {
    machine
        .codes
        .get(slot)?
        .origins
        .iter()
        .find_map(|origin| *origin)
}

/// Main's code after its first creation may only create more threads of
/// the function, join them and compute privately; returns the loop that
/// creates them.
fn check_main(machine: &Machine, function: &str) -> Result<Option<OriginId>, Refusal> {
    let code = &machine.codes[0];
    let Some(first) = code
        .instrs
        .iter()
        .position(|instr| matches!(instr, Instr::Do(SeqStmt::Create { .. })))
    else {
        return Err(Refusal::new(
            "main creates no thread",
            None,
            "create the threads of one function in a loop in main",
        ));
    };
    let mut creation_loop = None;
    for (instr, origin) in code.instrs.iter().zip(&code.origins).skip(first) {
        let help = "after it creates the threads, main may only create more of them and join them; \
                    move checks into the thread function";
        match instr {
            Instr::Jump(_) | Instr::BranchUnless { .. } => {}
            Instr::Do(stmt) => match stmt {
                SeqStmt::Create { slot, .. } => {
                    let created = machine.program.threads.get(*slot);
                    if created.is_none_or(|thread| thread.function != function) {
                        return Err(Refusal::new(
                            "main creates threads of more than one function",
                            *origin,
                            help,
                        ));
                    }
                }
                // the first loop bound after the first creation closes the
                // loop that creates (a later one is, say, a join loop)
                SeqStmt::LoopBound { stmt, .. } => {
                    creation_loop = creation_loop.or(Some(*stmt));
                }
                SeqStmt::Join { .. }
                | SeqStmt::Assign(..)
                | SeqStmt::Assume(_)
                | SeqStmt::Guard(_)
                | SeqStmt::ResumeCheck(_) => {}
                SeqStmt::Assert { .. } => {
                    return Err(Refusal::new(
                        "main checks a property after it creates the threads",
                        *origin,
                        help,
                    ));
                }
                _ => {
                    return Err(Refusal::new(
                        "main touches shared memory after it creates the threads",
                        *origin,
                        help,
                    ));
                }
            },
        }
    }
    Ok(creation_loop)
}

/// Runs main alone up to its first thread creation, along every
/// nondeterministic choice; all must give the same shared memory.
fn run_main(machine: &Machine) -> Result<State, Refusal> {
    let mut frontier = vec![machine.initial(true)];
    let mut at_creation: Option<State> = None;
    let mut steps = 0usize;
    while let Some(state) = frontier.pop() {
        steps += 1;
        if steps > MAX_CHOICE_COMBINATIONS {
            return Err(Refusal::new(
                "main's initialisation has too many nondeterministic paths",
                first_origin(machine, 0),
                "initialise shared memory deterministically before creating the threads",
            ));
        }
        let mut odometer = Odometer::default();
        loop {
            let mut next = state.clone();
            if let Some(recording) = next.recording.as_mut() {
                recording.records.clear();
            }
            let outcome = machine
                .apply_in_place(&mut next, Move::Run(0), &mut odometer)
                .map_err(|unsupported| {
                    Refusal::new(
                        unsupported.what,
                        unsupported.origin,
                        "the parameterised check runs main's initialisation natively",
                    )
                })?;
            match outcome {
                Outcome::Next(()) => {
                    let created = next.recording.as_ref().is_some_and(|recording| {
                        recording
                            .records
                            .iter()
                            .any(|record| record.kind == RecordKind::Create)
                    });
                    if created {
                        same_start(machine, &mut at_creation, next)?;
                    } else if next.threads[0].status != Status::Finished {
                        frontier.push(next);
                    }
                }
                Outcome::CutOff => {}
                Outcome::Disabled | Outcome::Violated(_) => {
                    return Err(Refusal::new(
                        "main waits or checks a property before it creates the threads",
                        first_origin(machine, 0),
                        "main may only initialise shared memory before it creates the threads",
                    ));
                }
            }
            if !odometer.advance() {
                break;
            }
        }
    }
    at_creation.ok_or_else(|| {
        Refusal::new(
            "no execution of main reaches a thread creation",
            first_origin(machine, 0),
            "create the threads of one function in a loop in main",
        )
    })
}

fn same_start(
    machine: &Machine,
    at_creation: &mut Option<State>,
    state: State,
) -> Result<(), Refusal> {
    match at_creation {
        None => *at_creation = Some(state),
        Some(first) if first.memory == state.memory && first.plain == state.plain => {}
        Some(_) => {
            return Err(Refusal::new(
                "main's initialisation of shared memory depends on a nondeterministic value",
                first_origin(machine, 0),
                "initialise shared memory deterministically before creating the threads",
            ));
        }
    }
    Ok(())
}

/// The first statement of the worker's code outside the fragment: its
/// reason and help.
pub fn check_worker(machine: &Machine, worker: usize) -> Result<(), Refusal> {
    let code = &machine.codes[worker];
    for (instr, origin) in code.instrs.iter().zip(&code.origins) {
        let Instr::Do(stmt) = instr else { continue };
        let refused = match stmt {
            SeqStmt::Rmw { .. } => Some((
                "an atomic read-modify-write (compare-and-swap, fetch-and-add, exchange)",
                "read-modify-writes take the problem out of the theory the check implements \
                 (Abdulla, Atig, Rezvan, POPL 2020, section 1); verify a fixed number of threads with \
                 `lazysma verify`",
            )),
            SeqStmt::Lock { .. } | SeqStmt::Unlock { .. } | SeqStmt::TryLock { .. } => Some((
                "a mutex",
                "locks take the problem out of the theory the check implements (section 1); \
                 verify a fixed number of threads with `lazysma verify`",
            )),
            SeqStmt::Create { .. } | SeqStmt::Join { .. } => Some((
                "a thread creates or joins a thread",
                "only main may create the threads",
            )),
            SeqStmt::Malloc { .. } | SeqStmt::Free { .. } => Some((
                "heap memory",
                "the check takes shared scalars of finite domains only",
            )),
            SeqStmt::AtomicBegin { .. } | SeqStmt::AtomicEnd { .. } => Some((
                "an atomic section",
                "atomic sections take the problem out of the theory the check implements",
            )),
            SeqStmt::Fence {
                kind: FenceKind::Full | FenceKind::StoreStore,
                ..
            } => None,
            _ => None,
        };
        if let Some((what, help)) = refused {
            return Err(Refusal::new(format!("{what} in the thread"), *origin, help));
        }
    }
    Ok(())
}
