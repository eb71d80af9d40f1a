//! The walk over an unrolled function that removes what no execution
//! reaches and notes the bounds that cut it ([`Pass`]).

use super::flow::{Flow, stored_value, value};
use super::{AllocationsAtEnd, BoundCut, Cut};
use crate::ir::{
    Block, Expr, FunctionId, LabelId, Local, OriginId, Place, PropertyKind, Stmt, StmtKind,
};
use crate::options::Bounds;
use crate::passes::walk::for_each_stmt;
use std::collections::{BTreeMap, HashMap};

pub(super) struct Pass<'a> {
    pub(super) locals: &'a [Local],
    /// The heap bounds (`nmalloc`, a given `heap_block`) cut allocations off.
    pub(super) bounds: &'a Bounds,
    /// The allocations of the thread functions this one may join.
    pub(super) joined: &'a AllocationsAtEnd,
    /// The allocations made before the function starts.
    pub(super) started_after: u32,
    /// [`Reachability::allocations_at_creation`] so far.
    pub(super) allocations_at_creation: BTreeMap<FunctionId, u32>,
    /// [`Reachability::heap_cut`] so far.
    pub(super) heap_cut: bool,
    pub(super) cuts: Vec<BoundCut>,
    /// Whether some execution reaches a `return` or a thread exit.
    pub(super) ends: bool,
    /// The least allocations on the paths to an end seen so far.
    pub(super) allocations_at_end: Option<u32>,
    /// How many `goto`s of the function jump to each label.
    pub(super) jumps: HashMap<LabelId, usize>,
    /// The flows of the `goto`s seen so far to each label, joined, and
    /// how many they are.
    pub(super) arrivals: HashMap<LabelId, (Flow, usize)>,
}

/// How many `goto`s of `body` jump to each label.
pub(super) fn jumps_to_labels(body: &Block) -> HashMap<LabelId, usize> {
    let mut jumps = HashMap::new();
    for_each_stmt(body, &mut |kind| {
        if let StmtKind::Goto(label) = kind {
            *jumps.entry(*label).or_insert(0) += 1;
        }
    });
    jumps
}

impl Pass<'_> {
    /// A path ends the function with `allocations` made, its creators'
    /// before it started too.
    pub(super) fn ended_with(&mut self, allocations: u32) {
        let own = allocations.saturating_sub(self.started_after);
        self.allocations_at_end = Some(self.allocations_at_end.map_or(own, |least| least.min(own)));
    }

    /// The flow where nothing is known (the start, a label a jump back
    /// reaches): reachable, with the allocations made before the start.
    pub(super) fn nothing_known(&self) -> Flow {
        Flow {
            allocations: self.started_after,
            ..Flow::entry()
        }
    }

    /// `pthread_join` of the thread whose handle `handle` holds: a thread
    /// this one created there has ended, with its allocations made. More
    /// than the heap has cut off every such execution.
    pub(super) fn join(&mut self, handle: &Expr, origin: OriginId, flow: &mut Flow) {
        let Expr::Load(place) = handle else { return };
        let Some(place) = flow.resolved(place) else {
            return;
        };
        let Some(position) = flow
            .running
            .iter()
            .position(|(running, _)| *running == place)
        else {
            return;
        };
        let (_, function) = flow.running.remove(position);
        flow.allocations = flow
            .allocations
            .saturating_add(self.joined.get(&function).copied().unwrap_or(0));
        if flow.allocations > self.bounds.nmalloc {
            let allocations = flow.allocations;
            self.heap_cut = true;
            *flow = Flow::unreachable(Some(Cut::HeapBlocksJoined {
                origin,
                allocations,
            }));
        }
    }

    /// A `goto label` with `flow` (unreachable for one that no execution
    /// reaches).
    pub(super) fn jump(&mut self, label: LabelId, flow: Flow) {
        let arrived = match self.arrivals.remove(&label) {
            Some((arrived, count)) => (arrived.join(flow), count + 1),
            None => (flow, 1),
        };
        self.arrivals.insert(label, arrived);
    }

    /// The flow at `label` after the flow `falling` through to it: with
    /// those of its `goto`s when all of them came before it, else (a jump
    /// back, or one the pass did not see) nothing known.
    pub(super) fn arrive(&mut self, label: LabelId, falling: Flow) -> Flow {
        let expected = self.jumps.get(&label).copied().unwrap_or(0);
        match self.arrivals.remove(&label) {
            None if expected == 0 => falling,
            Some((arrived, count)) if count == expected => falling.join(arrived),
            _ => self.nothing_known(),
        }
    }

    /// `block` without its unreachable statements, and the flow after it.
    pub(super) fn block(&mut self, block: Block, mut flow: Flow) -> (Block, Flow) {
        let mut out = Vec::with_capacity(block.len());
        for stmt in block {
            if let StmtKind::Label(label, _) = stmt.kind {
                flow = self.arrive(label, flow);
                out.push(stmt);
            } else if flow.reachable {
                flow = self.statement(stmt, flow, &mut out);
            } else {
                flow = self.unreachable_statement(stmt, flow, &mut out);
            }
        }
        (out, flow)
    }

    /// A statement the flow reaches: kept, with the flow after it.
    pub(super) fn statement(&mut self, stmt: Stmt, mut flow: Flow, out: &mut Block) -> Flow {
        let Stmt { kind, origin } = stmt;
        let kind = match kind {
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let (taken_then, taken_else) = match flow.decides(&condition) {
                    Some(false) => (Flow::unreachable(None), flow.clone()),
                    Some(true) => (flow.clone(), Flow::unreachable(None)),
                    None => {
                        let (mut taken_then, mut taken_else) = (flow.clone(), flow.clone());
                        taken_then.learn(&condition, true, self.locals);
                        taken_else.learn(&condition, false, self.locals);
                        (taken_then, taken_else)
                    }
                };
                let (then_branch, after_then) = self.block(then_branch, taken_then);
                let (else_branch, after_else) = self.block(else_branch, taken_else);
                flow = after_then.join(after_else);
                StmtKind::If {
                    condition,
                    then_branch,
                    else_branch,
                }
            }
            StmtKind::Assume(condition) => {
                match flow.decides(&condition) {
                    Some(false) => flow = Flow::unreachable(None),
                    _ => flow.learn(&condition, true, self.locals),
                }
                StmtKind::Assume(condition)
            }
            StmtKind::Await {
                condition,
                restart,
                waits_for,
            } => {
                match flow.decides(&condition) {
                    Some(false) => flow = Flow::unreachable(None),
                    _ => flow.learn(&condition, true, self.locals),
                }
                StmtKind::Await {
                    condition,
                    restart,
                    waits_for,
                }
            }
            StmtKind::LoopBound(condition) => {
                if flow.decides(&condition) == Some(false) {
                    flow = Flow::unreachable(Some(Cut::LoopBound(origin)));
                }
                StmtKind::LoopBound(condition)
            }
            StmtKind::Malloc {
                target,
                size,
                zeroed,
            } => {
                flow.forget(&target);
                match self.allocation_cut(origin, &size, &flow) {
                    Some(cut) => {
                        self.heap_cut = true;
                        flow = Flow::unreachable(Some(cut));
                    }
                    None => flow.allocations += 1,
                }
                StmtKind::Malloc {
                    target,
                    size,
                    zeroed,
                }
            }
            StmtKind::Return(_) | StmtKind::ThreadExit(_) => {
                self.ends = true;
                self.ended_with(flow.allocations);
                flow = Flow::unreachable(None);
                kind
            }
            StmtKind::ThreadCreate {
                handle,
                function,
                argument,
            } => {
                let least = self
                    .allocations_at_creation
                    .entry(function)
                    .or_insert(flow.allocations);
                *least = (*least).min(flow.allocations);
                flow.forget(&handle);
                if let Some(place) = flow.resolved(&handle) {
                    flow.running.push((place, function));
                }
                StmtKind::ThreadCreate {
                    handle,
                    function,
                    argument,
                }
            }
            StmtKind::ThreadJoin { handle } => {
                self.join(&handle, origin, &mut flow);
                StmtKind::ThreadJoin { handle }
            }
            StmtKind::Goto(label) => {
                self.jump(label, std::mem::replace(&mut flow, Flow::unreachable(None)));
                kind
            }
            StmtKind::Break | StmtKind::Continue => {
                flow = Flow::unreachable(None);
                kind
            }
            StmtKind::Assign(place, expr) => {
                self.assign(&place, &expr, &mut flow);
                StmtKind::Assign(place, expr)
            }
            StmtKind::Loop { .. } => {
                // not unrolled: what its body changes is unknown
                flow.constants.clear();
                flow.at_least.clear();
                kind
            }
            kind => {
                if let Some(target) = written_place(&kind) {
                    flow.forget(target);
                }
                kind
            }
        };
        out.push(Stmt { kind, origin });
        flow
    }

    /// The heap bound that cuts off every execution of an allocation of
    /// `size` scalars after `flow`, if one does.
    pub(super) fn allocation_cut(&self, origin: OriginId, size: &Expr, flow: &Flow) -> Option<Cut> {
        if flow.allocations >= self.bounds.nmalloc {
            return Some(Cut::HeapBlocks(origin));
        }
        let scalars = value(size, &flow.constants)?;
        let block = self.bounds.heap_block?;
        (scalars > i64::from(block)).then_some(Cut::HeapBlockSize { origin, scalars })
    }

    /// A statement the flow does not reach: removed, unless it holds a
    /// label that a jump may reach.
    pub(super) fn unreachable_statement(
        &mut self,
        stmt: Stmt,
        flow: Flow,
        out: &mut Block,
    ) -> Flow {
        if let StmtKind::Goto(label) = stmt.kind {
            self.jump(label, Flow::unreachable(None));
        }
        if let Some(cut) = flow.cut_by
            && matters(&stmt.kind)
            && !self.cuts.iter().any(|found| found.cut == cut)
        {
            self.cuts.push(BoundCut {
                cut,
                first_unreached: stmt.origin,
            });
        }
        match stmt.kind {
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } if holds_label(&then_branch) || holds_label(&else_branch) => {
                let (then_branch, after_then) = self.block(then_branch, flow.clone());
                let (else_branch, after_else) = self.block(else_branch, flow);
                out.push(Stmt {
                    kind: StmtKind::If {
                        condition,
                        then_branch,
                        else_branch,
                    },
                    origin: stmt.origin,
                });
                after_then.join(after_else)
            }
            StmtKind::Loop { .. } if holds_label(std::slice::from_ref(&stmt)) => {
                out.push(stmt);
                self.nothing_known()
            }
            _ => flow,
        }
    }

    /// `place = expr`: a private integer local takes the value, when known
    /// and representable; anything else written is forgotten.
    pub(super) fn assign(&self, place: &Place, expr: &Expr, flow: &mut Flow) {
        let stored = match place {
            Place::Local(local) => value(expr, &flow.constants)
                .and_then(|v| stored_value(self.locals.get(*local)?, v))
                .map(|v| (*local, v)),
            _ => None,
        };
        flow.forget(place);
        if let Some((local, v)) = stored {
            flow.constants.insert(local, v);
        }
    }
}

/// The place a statement other than an assignment or an allocation
/// writes, if private.
pub(super) fn written_place(kind: &StmtKind) -> Option<&Place> {
    match kind {
        StmtKind::Read { target, .. } | StmtKind::MutexTryLock { target, .. } => Some(target),
        StmtKind::Rmw { target, .. } | StmtKind::Call { target, .. } => target.as_ref(),
        StmtKind::ThreadCreate { handle, .. } => Some(handle),
        _ => None,
    }
}

/// Whether an unreached statement is one whose loss the user must hear of:
/// a visible statement or an assertion of the program.
pub(super) fn matters(kind: &StmtKind) -> bool {
    match kind {
        StmtKind::Assert { kind, .. } => *kind != PropertyKind::UnwindingAssertion,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .iter()
            .chain(else_branch)
            .any(|stmt| matters(&stmt.kind)),
        StmtKind::Loop {
            prelude,
            body,
            latch,
            ..
        } => prelude
            .iter()
            .chain(body)
            .chain(latch)
            .any(|stmt| matters(&stmt.kind)),
        kind => kind.is_visible(),
    }
}

/// Whether a label is defined anywhere in `block`.
pub(super) fn holds_label(block: &[Stmt]) -> bool {
    block.iter().any(|stmt| match &stmt.kind {
        StmtKind::Label(..) => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => holds_label(then_branch) || holds_label(else_branch),
        StmtKind::Loop {
            prelude,
            body,
            latch,
            ..
        } => holds_label(prelude) || holds_label(body) || holds_label(latch),
        _ => false,
    })
}
