//! Reads-from stateless model checking, RF-SMC, the search that answers
//! first: the events of a run (`event`), the runs of the machine that
//! replay and extend a schedule (`run`), the mutations of their reads
//! (`mutation`), the witness oracle through `consistency` (`oracle`), and
//! the recursion over schedules (`explore`), and the random probes of
//! that recursion that estimate how many classes it will explore
//! (`probe`); `--jobs` runs the recursion on worker threads (`parallel`)
//! and `--split` keeps one part of its classes (`split`); a move's
//! nondeterministic values are choices of its event (`choice`); and the
//! happens-before check of the accesses to heap blocks (`heap`) and to
//! plain globals, with its vector clocks (`order`).

pub mod choice;
pub mod event;
pub mod explore;
pub mod heap;
pub mod mutation;
pub mod oracle;
pub mod order;
pub mod parallel;
pub mod probe;
pub mod run;
pub mod split;
