//! Thread instantiation: `main` is slot 0 and every `pthread_create` site of
//! a (flattened) thread body gets its own slot with its own copy of the start
//! function; shared locals of each copy and the heap get location ids.
//! Each start function is inlined, unrolled and rid of unreachable code
//! once, before its creation sites are looked for.

use super::heap_needs::{self, HeapNeeds};
use super::unreachable;
use super::value_types::{ValueKind, ValueTypes, ValueTypesBuilder};
use super::walk::{LabelGen, for_each_stmt_mut, visit_operands};
use super::{MemoryLayout, ThreadSlot, diagnostic_at, inline, object_holding, unroll};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Block, Expr, Function, FunctionId, Local, LocalId, Locations, OriginId, Place, Program, Shape,
    StmtKind,
};
use crate::options::{BoundChoice, Bounds, TranslateOptions};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Most thread slots a program may need (main included).
pub const MAX_THREADS: usize = 64;

/// One thread copy: a flattened start function (no calls, no loops) whose
/// object addresses are location ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInstance {
    pub slot: usize,
    pub function: FunctionId,
    pub instance: u32,
    pub name: String,
    pub locals: Vec<Local>,
    pub params: Vec<LocalId>,
    pub body: Block,
    /// Slot of each `ThreadCreate` of `body`, in textual order.
    pub created: Vec<usize>,
    /// The creating slot (none for main).
    pub parent: Option<usize>,
    pub origin: OriginId,
}

/// All thread copies and the memory layout.
#[derive(Debug, Clone)]
pub struct Instances {
    pub threads: Vec<ThreadInstance>,
    pub memory: MemoryLayout,
    /// Every location, the heap's included, by object.
    pub locations: Locations,
    /// The C types of the locations, for reports.
    pub value_types: ValueTypes,
    /// Loop bounds that cut every execution before code that matters.
    pub warnings: Vec<Diagnostic>,
    /// The await loops made waits ([`super::await_loops`]), by origin,
    /// in the order they were found.
    pub await_loops: Vec<OriginId>,
}

impl Instances {
    pub fn slots(&self) -> Vec<ThreadSlot> {
        self.threads
            .iter()
            .map(|t| ThreadSlot {
                function: t.name.clone(),
                instance: t.instance,
            })
            .collect()
    }
}

/// Flattens and instantiates every thread of `program`.
pub fn instantiate(
    program: &Program,
    options: &TranslateOptions,
    labels: &mut LabelGen,
) -> Result<Instances, Box<Diagnostic>> {
    let mut flat = FlatFunctions {
        functions: HashMap::new(),
        warnings: program.warnings.clone(),
        own_depths: super::own_loop_depths(program, &options.bounds)?,
        heap_cut: false,
        await_loops: Vec::new(),
    };
    flat.flatten_all(program, options, labels)?;
    let mut threads = vec![new_instance(program, &flat, program.main, 0, None)?];
    let mut counts: HashMap<FunctionId, u32> = HashMap::from([(program.main, 1)]);
    let mut next = 0;
    while next < threads.len() {
        let sites = creation_sites(&threads[next].body);
        let mut created = Vec::with_capacity(sites.len());
        for (function, origin) in sites {
            check_bounded(program, &threads, next, function, origin)?;
            if threads.len() >= MAX_THREADS {
                return Err(diagnostic_at(
                    program,
                    origin,
                    format!("more than {MAX_THREADS} threads after unrolling"),
                    "this thread creation exceeds the limit".into(),
                    Some("lower --unwind".into()),
                ));
            }
            let count = counts.entry(function).or_insert(0);
            let instance = *count;
            *count += 1;
            let slot = threads.len();
            threads.push(new_instance(
                program,
                &flat,
                function,
                instance,
                Some(next),
            )?);
            threads[slot].slot = slot;
            created.push(slot);
        }
        threads[next].created = created;
        next += 1;
    }
    let needs = heap_needs::heap_needs(
        threads.iter().map(|t| &t.body),
        program.heap_block_size.max(1),
        flat.heap_cut,
    );
    let (memory, locations) = allocate_memory(program, options, &mut threads, needs);
    let mut types = ValueTypesBuilder::new(&program.structs);
    let location_bytes = locations.facts(&mut |shape| match shape {
        Shape::Scalar { ty, .. } => super::access_sizes::scalar_bytes(ty),
        _ => 0,
    });
    let kinds = locations.facts(&mut |shape| match shape {
        Shape::Scalar { ty, .. } => types.kind(ty),
        _ => ValueKind::Untyped,
    });

    let allocation_shapes = program
        .allocation_types
        .iter()
        .filter_map(|(&statement, ty)| Some((statement, types.shape(ty)?)))
        .collect();
    let value_types = ValueTypes {
        function_names: program
            .functions
            .iter()
            .map(|function| function.name.clone())
            .collect(),
        allocation_shapes,
        location_bytes,
        ..types.finish(
            kinds,
            u64::from(memory.heap_base),
            u64::from(memory.heap_block_size),
            program.byte_addresses,
        )
    };
    Ok(Instances {
        threads,
        memory,
        locations,
        value_types,
        warnings: flat.warnings,
        await_loops: flat.await_loops,
    })
}

/// The refusal of a loop nest whose unrolled code would hold `size`
/// statements, above [`unroll::MAX_UNROLLED_STATEMENTS`].
fn too_large_to_unroll(
    program: &Program,
    origin: OriginId,
    size: u64,
    unrolling: &unroll::Unrolling,
) -> Box<Diagnostic> {
    let line = program.origins.get(origin).map_or(0, |o| o.line);
    // a count that saturated is beyond any number worth printing
    let size = if size == u64::MAX {
        "more than 10^19".to_string()
    } else {
        size.to_string()
    };
    super::diagnostic_at(
        program,
        origin,
        format!(
            "unrolled {} times, this loop and the loops nested in it make {size} statements, \
             more than the {} that lazysma translates (the translation would take gigabytes)",
            unrolling.copies(origin),
            unroll::MAX_UNROLLED_STATEMENTS
        ),
        "too many copies of this loop nest".into(),
        Some(format!(
            "lower --unwind, or bound this loop alone with --unwindset {line}:N; \
             each copy of an outer loop holds every copy of the loops inside it"
        )),
    )
}

/// The start functions, each inlined, unrolled and rid of unreachable code
/// once, and the warnings that found.
struct FlatFunctions {
    functions: HashMap<FunctionId, Function>,
    warnings: Vec<Diagnostic>,
    /// The loops `--unwindset` unrolls to their own depth, by origin.
    own_depths: BTreeMap<OriginId, u32>,
    /// Whether a heap bound cut code off ([`unreachable::Reachability::heap_cut`]).
    heap_cut: bool,
    /// The await loops made waits ([`super::await_loops`]), by origin.
    await_loops: Vec<OriginId>,
}

impl FlatFunctions {
    /// Inlines and unrolls `main` and every start function that a thread
    /// may create, then rids each of its unreachable code. The heap counts
    /// cross threads both ways: a join counts the allocations of the
    /// function joined ([`unreachable::AllocationsAtEnd`], found from the
    /// created functions up), and a thread starts with the allocations
    /// every path to its creations made (found from `main` down, once all
    /// of a function's creators are done; a function that creates its own
    /// creator finds nothing counted, which cuts nothing). The warnings
    /// keep the order of creation. Under `--nmalloc auto` no heap bound
    /// cuts: the heap gets as many blocks as the threads can take.
    fn flatten_all(
        &mut self,
        program: &Program,
        options: &TranslateOptions,
        labels: &mut LabelGen,
    ) -> Result<(), Box<Diagnostic>> {
        let bounds = &cutting_bounds(options);
        let mut order = vec![program.main];
        let mut unrolled = HashMap::new();
        let mut next = 0;
        while let Some(&function) = order.get(next) {
            let mut f = inline::inline_function(program, function, labels)?;
            if options.spin_loops_as_waits {
                let mut found = Vec::new();
                f.body = super::await_loops::rewrite(
                    &f.body,
                    labels,
                    options.unwinding_assertions,
                    &mut found,
                );
                for origin in found {
                    if !self.await_loops.contains(&origin) {
                        self.await_loops.push(origin);
                    }
                }
            }
            let unrolling = unroll::Unrolling {
                unwind: options.bounds.unwind,
                assertions: options.unwinding_assertions,
                own: &self.own_depths,
            };
            if let Some((origin, size)) = unroll::too_large_to_unroll(&f.body, unrolling) {
                return Err(too_large_to_unroll(program, origin, size, &unrolling));
            }
            f.body = unroll::unroll_block(&f.body, unrolling, labels);
            for (created, _) in creation_sites(&f.body) {
                if !order.contains(&created) {
                    order.push(created);
                }
            }
            unrolled.insert(function, f);
            next += 1;
        }
        // what each function allocates before it ends, the threads it
        // joins included: the functions a thread creates first
        let mut at_end = unreachable::AllocationsAtEnd::new();
        for function in order.iter().rev() {
            if let Some(f) = unrolled.get(function) {
                let found = unreachable::remove_unreachable(&mut f.clone(), bounds, &at_end, 0);
                at_end.insert(*function, found.allocations_at_end);
            }
        }
        // then each function with the allocations its creators made before
        // every creation of it, known once all its creators are done
        let creators = creators(&order, &unrolled);
        let mut at_creation: HashMap<FunctionId, u32> = HashMap::new();
        for &function in &order {
            let Some(mut f) = unrolled.remove(&function) else {
                continue;
            };
            let creators_done = creators.get(&function).is_none_or(|all| {
                all.iter()
                    .all(|creator| self.functions.contains_key(creator))
            });
            let started_after = if creators_done {
                at_creation.get(&function).copied().unwrap_or(0)
            } else {
                0
            };
            let found = unreachable::remove_unreachable(&mut f, bounds, &at_end, started_after);
            self.heap_cut |= found.heap_cut;
            for (created, allocations) in &found.allocations_at_creation {
                let least = at_creation.entry(*created).or_insert(*allocations);
                *least = (*least).min(*allocations);
            }
            self.warnings
                .extend(unreachable::warnings(program, options, function, &found));
            self.functions.insert(function, f);
        }
        Ok(())
    }
}

/// The bounds that cut code off: the options' own, with no heap block
/// count under `--nmalloc auto`.
fn cutting_bounds(options: &TranslateOptions) -> Bounds {
    match options.auto_bounds.nmalloc {
        BoundChoice::Sufficient => Bounds {
            nmalloc: u32::MAX,
            ..options.bounds.clone()
        },
        BoundChoice::Given | BoundChoice::SufficientAtMost => options.bounds.clone(),
    }
}

/// The functions whose bodies create a thread of each function of `order`.
fn creators(
    order: &[FunctionId],
    bodies: &HashMap<FunctionId, Function>,
) -> HashMap<FunctionId, Vec<FunctionId>> {
    let mut creators: HashMap<FunctionId, Vec<FunctionId>> = HashMap::new();
    for function in order {
        for (created, _) in bodies
            .get(function)
            .map(|f| creation_sites(&f.body))
            .unwrap_or_default()
        {
            creators.entry(created).or_default().push(*function);
        }
    }
    creators
}

fn new_instance(
    program: &Program,
    flat: &FlatFunctions,
    function: FunctionId,
    instance: u32,
    parent: Option<usize>,
) -> Result<ThreadInstance, Box<Diagnostic>> {
    let Some(f) = flat.functions.get(&function) else {
        return Err(diagnostic_at(
            program,
            0,
            "internal error: thread function missing".into(),
            "here".into(),
            None,
        ));
    };
    Ok(ThreadInstance {
        slot: 0,
        function,
        instance,
        name: f.name.clone(),
        locals: f.locals.clone(),
        params: f.params.clone(),
        body: f.body.clone(),
        created: Vec::new(),
        parent,
        origin: f.origin,
    })
}

/// The start function and origin of each thread creation, in textual order.
pub fn creation_sites(body: &Block) -> Vec<(FunctionId, OriginId)> {
    let mut sites = Vec::new();
    visit_creations(body, &mut sites);
    sites
}

fn visit_creations(body: &Block, sites: &mut Vec<(FunctionId, OriginId)>) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::ThreadCreate { function, .. } => sites.push((*function, stmt.origin)),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                visit_creations(then_branch, sites);
                visit_creations(else_branch, sites);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                visit_creations(prelude, sites);
                visit_creations(body, sites);
                visit_creations(latch, sites);
            }
            _ => {}
        }
    }
}

/// Refuses a thread that (transitively) creates its own start function.
fn check_bounded(
    program: &Program,
    threads: &[ThreadInstance],
    creator: usize,
    function: FunctionId,
    origin: OriginId,
) -> Result<(), Box<Diagnostic>> {
    let mut slot = Some(creator);
    while let Some(s) = slot {
        let Some(thread) = threads.get(s) else { break };
        if thread.function == function {
            let name = program
                .functions
                .get(function)
                .map(|f| f.name.as_str())
                .unwrap_or("?");
            return Err(diagnostic_at(
                program,
                origin,
                format!(
                    "thread `{name}` is created by a thread running `{name}`: unbounded thread creation is not supported"
                ),
                format!("creates `{name}` again"),
                Some(
                    "bound the thread creation explicitly; lazysma needs a fixed number of threads"
                        .into(),
                ),
            ));
        }
        slot = thread.parent;
    }
    Ok(())
}

/// The memory layout and the locations, heap blocks included, by object.
fn allocate_memory(
    program: &Program,
    options: &TranslateOptions,
    threads: &mut [ThreadInstance],
    heap_needs: Option<HeapNeeds>,
) -> (MemoryLayout, Locations) {
    let mut names = program.locations.clone();
    if names.is_empty() {
        names.push_object("null".into(), Shape::Untyped);
    }
    let mut objects = global_objects(&program.locations);
    let mut pointees = pointee_globals(program, &objects);
    for thread in threads.iter_mut() {
        let mut addresses: HashMap<LocalId, i64> = HashMap::new();
        for (id, local) in thread.locals.iter().enumerate() {
            if !local.shared {
                continue;
            }
            let shape = Shape::of_type(&local.ty, &program.structs);
            let scalars = shape.scalars() as u32;
            if scalars == 0 {
                continue;
            }
            let first = names.push_object(
                format!("{}#{}::{}", thread.name, thread.instance, local.name),
                shape,
            );
            addresses.insert(id, i64::from(first));
            objects.push((first, scalars));
            pointees.insert(first);
        }
        // the thread's own copy of each thread-local object it uses
        let mut copies: HashMap<usize, i64> = HashMap::new();
        let used = plain_globals_used(&mut thread.body);
        for object in &program.thread_local_objects {
            if !used.contains(&object.address) {
                continue;
            }
            let shape = Shape::of_type(&object.ty, &program.structs);
            let scalars = shape.scalars() as u32;
            if scalars == 0 {
                continue;
            }
            let first = names.push_object(
                format!("{}#{}::{}", thread.name, thread.instance, object.name),
                shape,
            );
            copies.insert(object.address, i64::from(first));
            objects.push((first, scalars));
            pointees.insert(first);
            // only a scalar has an initial value other than zero
            names.set_initial(first as usize, object.initial);
        }
        for_each_stmt_mut(&mut thread.body, &mut |kind| {
            visit_operands(
                kind,
                &mut |e| {
                    if let Expr::ObjectAddress(l) = e {
                        *e = Expr::Const(addresses.get(l).copied().unwrap_or(0));
                    } else if let Expr::Load(Place::PlainGlobal(global)) = e
                        && let Some(&copy) = copies.get(global)
                    {
                        *e = Expr::Const(copy);
                    }
                },
                &mut |_| {},
            )
        });
    }
    let initial_values = names.initial_values().clone();
    let heap_base = names.len() as u32;
    // No heap locations when no thread allocates: they would only cost.
    let allocates = threads.iter().any(|t| {
        let mut found = false;
        super::walk::for_each_stmt(&t.body, &mut |k| {
            found |= matches!(k, StmtKind::Malloc { .. })
        });
        found
    });
    let heap_blocks = if allocates {
        heap_blocks(options, heap_needs)
    } else {
        0
    };
    let heap_block_size = program.heap_block_size.max(1);
    for k in 0..heap_blocks {
        names.push_object(
            format!("heap#{k}"),
            Shape::array(Shape::Untyped, u64::from(heap_block_size)),
        );
    }
    let memory = MemoryLayout {
        initial_values,
        heap_base,
        heap_blocks,
        heap_block_size,
        objects,
        pointees,
        padding: program.padding.clone(),
        heap_needs,
    };
    (memory, names)
}

/// The heap blocks of a program that allocates: as many as its threads can
/// take under `--nmalloc auto`, else `--nmalloc`, or fewer when the threads
/// cannot take that many (blocks are handed out in order, so the executions
/// are the same). With `auto` and no count, translation fails later
/// ([`crate::translate`]), so the number given stands in.
fn heap_blocks(options: &TranslateOptions, needs: Option<HeapNeeds>) -> u32 {
    match (options.auto_bounds.nmalloc, needs) {
        (BoundChoice::Sufficient, Some(needs)) => needs.blocks,
        (_, Some(needs)) => options.bounds.nmalloc.min(needs.blocks),
        (_, None) => options.bounds.nmalloc,
    }
}

/// The global objects as runs of consecutive locations of the same object
/// (the null location 0 belongs to none).
fn global_objects(locations: &Locations) -> Vec<(u32, u32)> {
    let mut objects: Vec<(u32, u32)> = Vec::new();
    let mut previous: Option<&str> = None;
    for object in locations.objects().iter().filter(|o| o.first > 0) {
        let scalars = object.scalars() as u32;
        match objects.last_mut() {
            Some((first, run))
                if previous == Some(object.name.as_str()) && *first + *run == object.first =>
            {
                *run += scalars
            }
            _ => objects.push((object.first, scalars)),
        }
        previous = Some(object.name.as_str());
    }
    objects
}

/// The global objects a pointer may point into, by their first location:
/// those holding a location whose address the program takes, or ending
/// just before it (an address one past the end).
fn pointee_globals(program: &Program, objects: &[(u32, u32)]) -> BTreeSet<u32> {
    let object_of = |location: u32| object_holding(objects, location).map(|(first, _)| first);
    let taken = program.address_taken.iter();
    taken
        .flat_map(|&location| {
            [
                object_of(location),
                location.checked_sub(1).and_then(object_of),
            ]
        })
        .flatten()
        .collect()
}

/// The plain globals that `block` loads whole (`Expr::Load` of one).
fn plain_globals_used(block: &mut Block) -> BTreeSet<usize> {
    let mut used = BTreeSet::new();
    for_each_stmt_mut(block, &mut |kind| {
        visit_operands(
            kind,
            &mut |e| {
                if let Expr::Load(Place::PlainGlobal(global)) = e {
                    used.insert(*global);
                }
            },
            &mut |_| {},
        )
    });
    used
}

/// Whether `block` still holds an object address (all must be resolved).
pub fn has_object_address(block: &Block) -> bool {
    let mut found = false;
    let mut copy = block.clone();
    for_each_stmt_mut(&mut copy, &mut |kind| {
        visit_operands(
            kind,
            &mut |e| found |= matches!(e, Expr::ObjectAddress(_)),
            &mut |_| {},
        )
    });
    found
}
