//! Heap blocks a thread has allocated and not yet published: no other
//! thread can reach them, so the thread's accesses to them are private, as
//! a node's fields are while a lock-free push fills them in before the
//! compare-and-swap that links it. [`buffering`](super::buffering) leaves
//! such accesses out of what the other threads observe and write, and the
//! timestamped SMAs give their stores the least timestamp and their loads
//! the newest write.
//!
//! A block's address is followed through the thread's private scalar
//! locals (`n`, `n + 1`, a copy into a parameter of an inlined function). It
//! escapes where it may reach anything else: a value stored to memory or
//! handed to a read-modify-write, a thread's argument or result, a private
//! array or struct, a computed value other than a comparison. From there on
//! the block is an ordinary one. Its private stores must have reached
//! memory by the time another thread can follow the published address:
//! under TSO they always have (stores reach memory in program order, and
//! creation, a join and a read-modify-write drain first); under PSO only
//! when a drain or a store-store fence separates them from the escape. A
//! block that escapes with stores unordered so ([`PrivateBlocks::escape`]
//! reports it) is counted as an ordinary one from its allocation on.

use crate::ir::{BinaryOp, Expr, LocalId, Place, Ty, UnaryOp};
use std::collections::{BTreeMap, BTreeSet};

/// An allocation, by the pre-order index of its `malloc` statement in the
/// thread body (no statement of a sequentialised thread runs twice).
pub type Site = usize;

/// The private blocks at one program point of a thread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrivateBlocks {
    /// The private blocks, with their first location where the translator
    /// knows it (when one thread alone allocates, its blocks are handed out
    /// in its program order, and their addresses are folded to constants).
    sites: BTreeMap<Site, Option<i64>>,
    /// Private scalar locals that hold an address inside a block the thread
    /// allocated, private or escaped: the block and the offset in scalars
    /// from its first location.
    pointers: BTreeMap<LocalId, (Site, i64)>,
    /// Blocks with private stores not yet ordered before the thread's later
    /// stores (no drain or store-store fence since).
    unordered: BTreeSet<Site>,
    /// Blocks that escaped on some path here: ordinary blocks from there on.
    escaped: BTreeSet<Site>,
    /// Blocks that escaped with unordered stores, not yet taken by
    /// [`PrivateBlocks::take_unordered_escapes`].
    unordered_escapes: BTreeSet<Site>,
}

impl PrivateBlocks {
    /// What holds after two paths meet. A block is private if it escaped
    /// on neither (it may have been allocated on one only); a local points
    /// into one where it does so on both alike. A local that points into a
    /// block on one path and elsewhere on the other loses track of it: the
    /// block escapes there.
    pub fn join(&mut self, other: &PrivateBlocks) {
        let mut lost = BTreeSet::new();
        for (local, pointer) in &self.pointers {
            if other.pointers.get(local) != Some(pointer) {
                lost.insert(pointer.0);
            }
        }
        for (local, pointer) in &other.pointers {
            if self.pointers.get(local) != Some(pointer) {
                lost.insert(pointer.0);
            }
        }
        for (site, first) in &other.sites {
            let mine = self.sites.entry(*site).or_insert(*first);
            if mine != first {
                *mine = None;
            }
        }
        self.unordered.extend(other.unordered.iter().copied());
        self.escaped.extend(other.escaped.iter().copied());
        self.unordered_escapes
            .extend(other.unordered_escapes.iter().copied());
        self.pointers
            .retain(|local, pointer| other.pointers.get(local) == Some(pointer));
        let escaped = &self.escaped;
        self.sites.retain(|site, _| !escaped.contains(site));
        self.escape_sites(lost);
    }

    /// `malloc` at `site` into `target`: a fresh block (at location `first`
    /// when known), private unless the address goes somewhere other than a
    /// scalar local.
    pub fn allocate(&mut self, target: &Place, site: Site, first: Option<i64>) {
        match target {
            Place::Local(local) => {
                self.sites.insert(site, first);
                self.pointers.insert(*local, (site, 0));
            }
            other => self.forget(other),
        }
    }

    /// The private block an access at `address` stays inside, given its
    /// blocks of `block_size` scalars.
    pub fn block_of(&self, address: &Expr, block_size: u32) -> Option<Site> {
        let inside = |offset: i64| (0..i64::from(block_size)).contains(&offset);
        if let Expr::Const(location) = address {
            let mut known = self
                .sites
                .iter()
                .filter_map(|(site, first)| Some((*site, (*first)?)));
            return known
                .find(|(_, first)| inside(location - first))
                .map(|(site, _)| site);
        }
        let (site, offset) = self.pointer(address)?;
        (inside(offset) && self.sites.contains_key(&site)).then_some(site)
    }

    /// A store to private block `site`.
    pub fn store(&mut self, site: Site) {
        self.unordered.insert(site);
    }

    /// A drain or a store-store fence: the private stores so far reach
    /// memory before any later store.
    pub fn order_stores(&mut self) {
        self.unordered.clear();
    }

    /// `target = value` of a private place: a copy of a private address
    /// (give or take a constant) stays private; any other use of one in the
    /// value is an escape.
    pub fn assign(&mut self, target: &Place, value: &Expr) {
        if let Place::Local(local) = target
            && let Some(pointer) = self.pointer(value)
        {
            self.pointers.insert(*local, pointer);
            return;
        }
        self.escape(value);
        self.forget(target);
    }

    /// `target` gets a value from elsewhere (memory, a try-lock): it no
    /// longer holds a private address.
    pub fn forget(&mut self, target: &Place) {
        if let Some(local) = target.root_local() {
            self.pointers.remove(&local);
        }
    }

    /// The private blocks whose address `value` carries elsewhere become
    /// ordinary blocks.
    pub fn escape(&mut self, value: &Expr) {
        let mut sites = BTreeSet::new();
        self.carried(value, &mut sites);
        self.escape_sites(sites);
    }

    /// The blocks that escaped with unordered stores since the last call
    /// (on any path that reaches here).
    pub fn take_unordered_escapes(&mut self) -> BTreeSet<Site> {
        std::mem::take(&mut self.unordered_escapes)
    }

    /// The blocks at `sites` escape. The locals that point into them still
    /// do: a block that escaped on one path only escapes again, with the
    /// other path's unordered stores, wherever its address goes next.
    fn escape_sites(&mut self, sites: BTreeSet<Site>) {
        self.sites.retain(|site, _| !sites.contains(site));
        self.unordered_escapes
            .extend(sites.iter().filter(|site| self.unordered.contains(site)));
        self.escaped.extend(sites);
    }

    /// The private address `expr` denotes: a private local, plus or minus
    /// constants, through pointer casts and casts to integers that hold it.
    fn pointer(&self, expr: &Expr) -> Option<(Site, i64)> {
        match expr {
            Expr::Load(Place::Local(local)) => self.pointers.get(local).copied(),
            Expr::Cast(Ty::Pointer(_), inner) => self.pointer(inner),
            Expr::Cast(Ty::Int { bits, .. }, inner) if *bits >= 32 => self.pointer(inner),
            Expr::Binary(BinaryOp::Add, base, offset)
            | Expr::Binary(BinaryOp::Add, offset, base)
                if matches!(**offset, Expr::Const(_)) =>
            {
                let (site, at) = self.pointer(base)?;
                let Expr::Const(offset) = **offset else {
                    return None;
                };
                Some((site, at.checked_add(offset)?))
            }
            Expr::Binary(BinaryOp::Sub, base, offset) => {
                let (site, at) = self.pointer(base)?;
                let Expr::Const(offset) = **offset else {
                    return None;
                };
                Some((site, at.checked_sub(offset)?))
            }
            _ => None,
        }
    }

    /// Adds the private blocks whose address `expr`'s value may carry: those
    /// of every private local it loads, except under a comparison, whose
    /// result is a truth value.
    fn carried(&self, expr: &Expr, sites: &mut BTreeSet<Site>) {
        match expr {
            Expr::Binary(
                BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::LogicalAnd
                | BinaryOp::LogicalOr,
                ..,
            )
            | Expr::Unary(UnaryOp::Not, _) => {}
            Expr::Load(place) => self.carried_by_place(place, sites),
            Expr::Unary(_, inner) | Expr::Cast(_, inner) | Expr::Reinterpret(_, inner) => {
                self.carried(inner, sites)
            }
            Expr::Binary(_, left, right) => {
                self.carried(left, sites);
                self.carried(right, sites);
            }
            Expr::Conditional(condition, then_value, else_value) => {
                self.carried(condition, sites);
                self.carried(then_value, sites);
                self.carried(else_value, sites);
            }
            Expr::LibraryCall(_, arguments) => arguments
                .iter()
                .for_each(|argument| self.carried(argument, sites)),
            Expr::Const(_)
            | Expr::FloatConst(_)
            | Expr::ObjectAddress(_)
            | Expr::Nondet(_)
            | Expr::CurrentThread => {}
        }
    }

    fn carried_by_place(&self, place: &Place, sites: &mut BTreeSet<Site>) {
        match place {
            Place::Local(local) => sites.extend(self.pointers.get(local).map(|(site, _)| *site)),
            Place::Index(base, index) => {
                self.carried_by_place(base, sites);
                self.carried(index, sites);
            }
            Place::Field(base, _) => self.carried_by_place(base, sites),
            Place::PlainGlobal(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(local: LocalId) -> Expr {
        Expr::Load(Place::Local(local))
    }

    fn plus(expr: Expr, offset: i64) -> Expr {
        Expr::Binary(BinaryOp::Add, Box::new(expr), Box::new(Expr::Const(offset)))
    }

    #[test]
    fn an_address_inside_the_block_is_private() {
        let mut blocks = PrivateBlocks::default();
        blocks.allocate(&Place::Local(0), 7, None);
        assert_eq!(blocks.block_of(&load(0), 2), Some(7));
        assert_eq!(blocks.block_of(&plus(load(0), 1), 2), Some(7));
        assert_eq!(
            blocks.block_of(&plus(load(0), 2), 2),
            None,
            "past the block"
        );
        let cast = Expr::Cast(Ty::Pointer(Box::new(Ty::INT)), Box::new(plus(load(0), 1)));
        assert_eq!(blocks.block_of(&cast, 2), Some(7));
        // a copy, give or take a constant, stays private
        blocks.assign(&Place::Local(1), &plus(load(0), 1));
        assert_eq!(blocks.block_of(&load(1), 2), Some(7));
        let back = Expr::Binary(BinaryOp::Sub, Box::new(load(1)), Box::new(Expr::Const(1)));
        assert_eq!(blocks.block_of(&back, 2), Some(7));
        // an unknown index may leave the block
        let indexed = Expr::Binary(BinaryOp::Add, Box::new(load(0)), Box::new(load(5)));
        assert_eq!(blocks.block_of(&indexed, 2), None);
        // a local that gets another value no longer points there
        blocks.forget(&Place::Local(1));
        assert_eq!(blocks.block_of(&load(1), 2), None);
    }

    #[test]
    fn an_address_that_goes_elsewhere_escapes() {
        let mut blocks = PrivateBlocks::default();
        blocks.allocate(&Place::Local(0), 3, None);
        blocks.assign(&Place::Local(1), &load(0));
        // a comparison carries no address
        let test = Expr::Binary(BinaryOp::Eq, Box::new(load(0)), Box::new(Expr::Const(0)));
        blocks.assign(&Place::Local(2), &test);
        assert_eq!(blocks.block_of(&load(1), 2), Some(3));
        // stored before any store to the block: it escapes in order
        blocks.escape(&load(0));
        assert_eq!(blocks.block_of(&load(1), 2), None, "every copy escapes");
        assert!(blocks.take_unordered_escapes().is_empty());
        // a marked address escapes, with its unordered store
        blocks.allocate(&Place::Local(0), 4, None);
        blocks.store(4);
        let marked = Expr::Binary(BinaryOp::BitOr, Box::new(load(0)), Box::new(Expr::Const(1)));
        blocks.assign(&Place::Local(2), &marked);
        assert_eq!(blocks.take_unordered_escapes(), BTreeSet::from([4]));
        assert!(blocks.take_unordered_escapes().is_empty(), "taken once");
        // after a store-store fence the stores are ordered
        blocks.allocate(&Place::Local(0), 5, None);
        blocks.store(5);
        blocks.order_stores();
        blocks.escape(&load(0));
        assert!(blocks.take_unordered_escapes().is_empty());
        // into a private array
        blocks.allocate(&Place::Local(0), 6, None);
        let element = Place::Index(Box::new(Place::Local(9)), Box::new(Expr::Const(0)));
        blocks.store(6);
        blocks.assign(&element, &load(0));
        assert_eq!(blocks.take_unordered_escapes(), BTreeSet::from([6]));
        assert_eq!(blocks.block_of(&load(0), 2), None);
    }

    #[test]
    fn a_known_block_is_private_at_its_constant_locations() {
        let mut blocks = PrivateBlocks::default();
        blocks.allocate(&Place::Local(0), 2, Some(10));
        assert_eq!(blocks.block_of(&Expr::Const(11), 2), Some(2));
        assert_eq!(blocks.block_of(&Expr::Const(12), 2), None);
        assert_eq!(blocks.block_of(&Expr::Const(9), 2), None);
        // even where no local points to it any more, until it escapes
        blocks.assign(&Place::Local(1), &load(0));
        blocks.forget(&Place::Local(0));
        assert_eq!(blocks.block_of(&Expr::Const(10), 2), Some(2));
        blocks.escape(&load(1));
        assert_eq!(blocks.block_of(&Expr::Const(10), 2), None);
    }

    #[test]
    fn paths_that_meet_keep_what_both_know() {
        // allocated on one path only: still private after the paths meet
        let mut left = PrivateBlocks::default();
        let mut right = left.clone();
        right.allocate(&Place::Local(1), 2, Some(10));
        left.join(&right);
        assert_eq!(left.block_of(&load(1), 2), None, "the local differs");
        assert!(left.take_unordered_escapes().is_empty());
        // a local that points into the block on one path only: it escapes,
        // with its unordered store
        let mut left = PrivateBlocks::default();
        left.allocate(&Place::Local(0), 1, Some(10));
        left.store(1);
        let mut right = left.clone();
        right.assign(&Place::Local(0), &Expr::Const(0));
        left.join(&right);
        assert_eq!(left.block_of(&load(0), 2), None);
        assert_eq!(left.block_of(&Expr::Const(10), 2), None);
        assert_eq!(left.take_unordered_escapes(), BTreeSet::from([1]));
        // escaped on one path: ordinary after the paths meet
        let mut left = PrivateBlocks::default();
        left.allocate(&Place::Local(0), 1, Some(10));
        left.assign(&Place::Local(1), &Expr::Const(0));
        let mut right = left.clone();
        right.escape(&load(0));
        right.assign(&Place::Local(0), &Expr::Const(0));
        left.assign(&Place::Local(0), &Expr::Const(0));
        left.join(&right);
        assert_eq!(left.block_of(&Expr::Const(10), 2), None);
        // published in order on one path (a compare-and-swap that
        // succeeded), filled in on the other: ordinary after the paths meet,
        // and published again with the other path's unordered store
        let mut left = PrivateBlocks::default();
        left.allocate(&Place::Local(0), 1, None);
        let mut right = left.clone();
        left.escape(&load(0));
        right.store(1);
        left.join(&right);
        assert_eq!(left.block_of(&load(0), 2), None);
        assert!(left.take_unordered_escapes().is_empty());
        left.escape(&load(0));
        assert_eq!(left.take_unordered_escapes(), BTreeSet::from([1]));
        // the same on both paths: private
        let mut left = PrivateBlocks::default();
        left.allocate(&Place::Local(0), 1, Some(10));
        let right = left.clone();
        left.join(&right);
        assert_eq!(left.block_of(&plus(load(0), 1), 2), Some(1));
        assert_eq!(left.block_of(&Expr::Const(11), 2), Some(1));
    }
}
