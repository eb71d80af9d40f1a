//! Lowering of the POSIX synchronisation calls beside mutex lock and
//! unlock: try-locks, condition variables, semaphores, read-write locks,
//! barriers and `pthread_once`, each as the memory
//! operations an implementation performs (a `sem_t` and a
//! `pthread_rwlock_t` are one int of shared memory, a `pthread_barrier_t`
//! two, changed only by read-modify-writes, which drain the buffers as
//! POSIX has these calls synchronise memory).

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

/// `ETIMEDOUT` of Linux's `errno.h`: what a timed wait returns when it
/// times out.
const ETIMEDOUT: i64 = 110;

/// `EAGAIN` of Linux's `errno.h`: `sem_trywait`'s errno when the count is 0.
const EAGAIN: i64 = 11;

/// `EBUSY` of Linux's `errno.h`: what a try-lock returns when the lock is
/// held.
const EBUSY: i64 = 16;

/// The value of a read-write lock held by a writer; 0 is free, n > 0 held
/// by n readers.
const WRITER: i64 = -1;

/// `PTHREAD_BARRIER_SERIAL_THREAD` of glibc: what `pthread_barrier_wait`
/// returns in one thread of each group (the last to arrive); the others
/// get 0.
const BARRIER_SERIAL_THREAD: i64 = -1;

/// Whether `name` is one of the read-write lock calls
/// ([`FnLowerer::read_write_lock`]).
pub fn is_read_write_lock_call(name: &str) -> bool {
    READ_WRITE_LOCK_CALLS.contains(&name)
}

const READ_WRITE_LOCK_CALLS: [&str; 9] = [
    "pthread_rwlock_init",
    "pthread_rwlock_destroy",
    "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock",
    "pthread_rwlock_unlock",
    "pthread_rwlock_tryrdlock",
    "pthread_rwlock_trywrlock",
    "pthread_rwlock_timedrdlock",
    "pthread_rwlock_timedwrlock",
];

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// `pthread_mutex_trylock(mutex)` (and `pthread_spin_trylock`): one
    /// visible statement that takes the mutex when it is free (0) and
    /// otherwise finds it held (`EBUSY`).
    pub fn try_lock(&mut self, mutex: &'a Node<Expression>) -> LResult<Val> {
        let mutex = self.rvalue(mutex)?;
        let taken = self.try_to_take(self.lw.location_of(mutex.expr));
        Ok(int(choose(taken, Expr::Const(0), Expr::Const(EBUSY))))
    }

    /// Emits the try-lock of the mutex at `location`; whether it took it.
    fn try_to_take(&mut self, location: Expr) -> Expr {
        let taken = self.temp(&CType::INT);
        self.emit(StmtKind::MutexTryLock {
            target: Place::Local(taken),
            mutex: location,
        });
        binary(
            BinaryOp::Ne,
            Expr::Load(Place::Local(taken)),
            Expr::Const(0),
        )
    }

    /// `pthread_mutex_timedlock(mutex, deadline)`: takes the mutex, or,
    /// when another thread holds it, may give up at the deadline (any time:
    /// lazysma's clocks are arbitrary) with `ETIMEDOUT`. A free mutex is
    /// always taken (POSIX: no timeout when it can be locked at once): the
    /// lock either waits for the mutex, or tries it once and times out if
    /// it is held.
    pub fn timed_lock(&mut self, mutex: &'a Node<Expression>) -> LResult<Val> {
        let mutex = self.mutex_location(mutex)?;
        let result = self.temp(&CType::INT);
        let (waits, ()) = self.in_block(|f| {
            f.emit(StmtKind::MutexLock(mutex.clone()));
            f.emit(StmtKind::Assign(Place::Local(result), Expr::Const(0)));
            Ok(())
        })?;
        let (tries, ()) = self.in_block(|f| {
            let taken = f.try_to_take(mutex.clone());
            f.emit(StmtKind::Assign(
                Place::Local(result),
                choose(taken, Expr::Const(0), Expr::Const(ETIMEDOUT)),
            ));
            Ok(())
        })?;
        self.emit(StmtKind::If {
            condition: Expr::Nondet(Ty::Bool),
            then_branch: waits,
            else_branch: tries,
        });
        Ok(int(Expr::Load(Place::Local(result))))
    }

    /// The location of the mutex `mutex` points to, its pointer evaluated
    /// once (a wait names it twice: to unlock and to lock again).
    fn mutex_location(&mut self, mutex: &'a Node<Expression>) -> LResult<Expr> {
        let mutex = self.rvalue(mutex)?;
        let mutex = self.save(mutex.expr, &mutex.ty);
        Ok(self.lw.location_of(mutex))
    }

    /// `pthread_cond_wait(cond, mutex)`: POSIX allows a wait to return at
    /// any time without a signal (a spurious wakeup), so releasing the mutex
    /// and taking it again is a wait: other threads may run in between, and
    /// every execution of the program is one of these. A loop that waits
    /// for its condition (as POSIX asks) is unrolled like any other.
    ///
    /// A `pthread_cond_t` is the count of the signals sent to it. Besides
    /// the spurious wakeup, a wait may also wait for a signal: it reads the
    /// count while it holds the mutex and then waits
    /// ([`StmtKind::Await`]) until the count differs. For safety that
    /// branch adds nothing; it is where a thread that no signal will wake
    /// waits for ever (a lost wake-up, a `deadlock`), as it would on an
    /// implementation that never wakes spuriously.
    ///
    /// `pthread_cond_timedwait` may also time out: it returns 0 or
    /// `ETIMEDOUT`, and never waits for ever.
    pub fn condition_wait(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let condition = self.sync_object(name, arguments, span, 2)?;
        let mutex = self.mutex_location(&arguments[1])?;
        let timed = name == "pthread_cond_timedwait";
        let signals = (!timed).then(|| self.read_shared(condition.clone(), CType::INT).expr);
        self.emit(StmtKind::MutexUnlock(mutex.clone()));
        if let Some(signals) = signals {
            let (waits, ()) = self.in_block(|f| {
                f.wait_for_signal(condition, signals);
                Ok(())
            })?;
            self.emit(StmtKind::If {
                condition: Expr::Nondet(Ty::Bool),
                then_branch: waits,
                else_branch: Vec::new(),
            });
        }
        self.emit(StmtKind::MutexLock(mutex));
        if !timed {
            return Ok(Val::int(0));
        }
        let outcome = self.temp(&CType::INT);
        self.emit(StmtKind::Assign(
            Place::Local(outcome),
            Expr::Nondet(Ty::INT),
        ));
        let timed_out = binary(
            BinaryOp::Ne,
            Expr::Load(Place::Local(outcome)),
            Expr::Const(0),
        );
        Ok(int(choose(
            timed_out,
            Expr::Const(ETIMEDOUT),
            Expr::Const(0),
        )))
    }

    /// Waits until the signal count at `condition` differs from `signals`,
    /// the count the wait began with (see [`Self::condition_wait`]).
    fn wait_for_signal(&mut self, condition: Expr, signals: Expr) {
        let restart = self.fresh_label();
        self.emit(StmtKind::Label(restart, "wait_for_signal".into()));
        let now = self.read_shared(condition, CType::INT).expr;
        self.emit(StmtKind::Await {
            condition: binary(BinaryOp::Ne, now, signals),
            restart,
            waits_for: AwaitKind::ConditionSignal,
        });
    }

    /// `pthread_cond_signal` and `pthread_cond_broadcast`: they count a
    /// signal (which lets every wait that began before it go on: POSIX lets
    /// any waiter wake anyway) and synchronise memory (XBD 4.12).
    pub fn condition_signal(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let condition = self.sync_object(name, arguments, span, 1)?;
        self.emit(StmtKind::Fence(FenceKind::Full));
        self.count_up(condition);
        Ok(Val::int(0))
    }

    /// Adds one to the count at `address` atomically (a read-modify-write,
    /// which drains the buffers first): a semaphore's post, a signal.
    fn count_up(&mut self, address: Expr) {
        self.emit(StmtKind::Rmw {
            target: None,
            address,
            op: RmwOp::FetchAdd(Expr::Const(1)),
        });
    }

    /// Semaphores: a `sem_t` is its count. `sem_init` stores the count and
    /// `sem_post` increments it atomically. `sem_wait` decrements it when
    /// positive and waits until it is ([`Self::guessed_exchange`]);
    /// `sem_trywait` and `sem_timedwait` may also find a count of at most 0
    /// and fail (-1).
    pub fn semaphore(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let address = self.sync_object(
            name,
            arguments,
            span,
            match name {
                "sem_init" => 3,
                "sem_getvalue" => 2,
                _ => 1,
            },
        )?;
        match name {
            "sem_init" => {
                let count = self.rvalue(&arguments[2])?.expr;
                self.write_shared(address, count, &CType::INT);
            }
            "sem_destroy" => {}
            "sem_post" => self.count_up(address),
            "sem_getvalue" => {
                let count = self.read_shared(address, CType::INT);
                let destination = self.pointer_argument(&arguments[1])?;
                self.store(&destination, count, span)?;
            }
            "sem_wait" => {
                self.guessed_exchange(address, Some(&|count| positive(count)), &|count| {
                    decremented(count)
                });
            }
            _ => {
                let count = self.guessed_exchange(address, None, &|count| {
                    choose(positive(count), decremented(count), count.clone())
                });
                // a failure sets errno: EAGAIN (trywait) or ETIMEDOUT
                let failure = if name == "sem_trywait" {
                    EAGAIN
                } else {
                    ETIMEDOUT
                };
                let errno = self.lw.errno();
                self.emit(StmtKind::Assign(
                    errno.clone(),
                    choose(positive(&count), Expr::Load(errno), Expr::Const(failure)),
                ));
                return Ok(int(choose(
                    positive(&count),
                    Expr::Const(0),
                    Expr::Const(-1),
                )));
            }
        }
        Ok(Val::int(0))
    }

    /// Read-write locks: a `pthread_rwlock_t` is 0 when free, n > 0 when
    /// n readers hold it, and -1 when a writer does. A read lock adds a
    /// reader when no writer holds it, a write lock takes a free lock, an
    /// unlock releases the writer or one reader; each waits until it can
    /// ([`Self::guessed_exchange`]). The try and timed variants may instead
    /// find the lock held and fail (`EBUSY`, `ETIMEDOUT`) without waiting.
    pub fn read_write_lock(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let address = self.sync_object(name, arguments, span, 1)?;
        let operation = name.trim_start_matches("pthread_rwlock_");
        let readable = |lock: &Expr| binary(BinaryOp::Ge, lock.clone(), Expr::Const(0));
        let free = |lock: &Expr| binary(BinaryOp::Eq, lock.clone(), Expr::Const(0));
        let add_reader = |lock: &Expr| binary(BinaryOp::Add, lock.clone(), Expr::Const(1));
        let failure = if operation.starts_with("timed") {
            ETIMEDOUT
        } else {
            EBUSY
        };
        match operation {
            "init" => self.write_shared(address, Expr::Const(0), &CType::INT),
            "destroy" => {}
            "rdlock" => {
                self.guessed_exchange(address, Some(&readable), &add_reader);
            }
            "wrlock" => {
                self.guessed_exchange(address, Some(&free), &|_| Expr::Const(WRITER));
            }
            "unlock" => {
                let writer = |lock: &Expr| binary(BinaryOp::Eq, lock.clone(), Expr::Const(WRITER));
                let held = |lock: &Expr| binary(BinaryOp::LogicalOr, writer(lock), positive(lock));
                let released =
                    |lock: &Expr| choose(writer(lock), Expr::Const(0), decremented(lock));
                self.guessed_exchange(address, Some(&held), &released);
            }
            "tryrdlock" | "timedrdlock" => {
                let lock = self.guessed_exchange(address, None, &|lock| {
                    choose(readable(lock), add_reader(lock), lock.clone())
                });
                return Ok(int(choose(
                    readable(&lock),
                    Expr::Const(0),
                    Expr::Const(failure),
                )));
            }
            _ => {
                let lock = self.guessed_exchange(address, None, &|lock| {
                    choose(free(lock), Expr::Const(WRITER), lock.clone())
                });
                return Ok(int(choose(
                    free(&lock),
                    Expr::Const(0),
                    Expr::Const(failure),
                )));
            }
        }
        Ok(Val::int(0))
    }

    /// Barriers: a `pthread_barrier_t` is its thread count n and the number
    /// of arrivals so far. `pthread_barrier_init` sets both; a wait adds
    /// its arrival atomically, and then waits until the arrivals complete
    /// its group of n (the next multiple of n, so a barrier can be used
    /// again): one compare-and-swap that must find that many and writes
    /// them back ([`Self::guessed_exchange`]). The last thread of a group
    /// gets `PTHREAD_BARRIER_SERIAL_THREAD`, the others 0.
    pub fn barrier(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let needed = if name == "pthread_barrier_init" { 3 } else { 1 };
        let count = self.sync_object(name, arguments, span, needed)?;
        let arrivals = binary(BinaryOp::Add, count.clone(), Expr::Const(1));
        match name {
            "pthread_barrier_init" => {
                let threads = self.rvalue(&arguments[2])?.expr;
                self.write_shared(count, threads, &CType::INT);
                self.write_shared(arrivals, Expr::Const(0), &CType::INT);
                Ok(Val::int(0))
            }
            "pthread_barrier_destroy" => Ok(Val::int(0)),
            _ => {
                let threads = self.read_shared(count, CType::INT).expr;
                // a barrier for no thread is refused by its initialisation
                self.emit(StmtKind::Assume(positive(&threads)));
                let arrived = self.temp(&CType::INT);
                self.emit(StmtKind::Rmw {
                    target: Some(Place::Local(arrived)),
                    address: arrivals.clone(),
                    op: RmwOp::FetchAdd(Expr::Const(1)),
                });
                let arrived = Expr::Load(Place::Local(arrived));
                // the end of this arrival's group: the next multiple of n
                let group = binary(BinaryOp::Div, arrived.clone(), threads.clone());
                let complete = binary(
                    BinaryOp::Mul,
                    binary(BinaryOp::Add, group, Expr::Const(1)),
                    threads.clone(),
                );
                let complete = self.save(complete, &CType::INT);
                self.guessed_exchange(
                    arrivals,
                    Some(&|found| binary(BinaryOp::Ge, found.clone(), complete.clone())),
                    &|found| found.clone(),
                );
                let last = binary(
                    BinaryOp::Eq,
                    binary(BinaryOp::Rem, arrived, threads.clone()),
                    binary(BinaryOp::Sub, threads, Expr::Const(1)),
                );
                Ok(int(choose(
                    last,
                    Expr::Const(BARRIER_SERIAL_THREAD),
                    Expr::Const(0),
                )))
            }
        }
    }

    /// `pthread_once(control, init)`: the control word is 0 before the
    /// first call, 1 while `init` runs, 2 after. Each call claims it by a
    /// compare-and-swap from 0 to 1 on the value it finds
    /// ([`Self::guessed_exchange`]); the call that claimed it runs `init`
    /// and then sets it to 2 atomically, every other one waits until it is 2.
    pub fn once(&mut self, arguments: &'a [Node<Expression>], span: Span) -> LResult<Val> {
        const UNCLAIMED: i64 = 0;
        const RUNNING: i64 = 1;
        const DONE: i64 = 2;
        let control = self.sync_object("pthread_once", arguments, span, 2)?;
        let Some((function, name)) = self.named_function(&arguments[1]) else {
            return self.lw.refuse(
                arguments[1].span,
                "a `pthread_once` routine that is not a function defined in the program",
                Some("name the function directly"),
            );
        };
        let is = |value: &Expr, constant: i64| {
            binary(BinaryOp::Eq, value.clone(), Expr::Const(constant))
        };
        let found = self.guessed_exchange(control.clone(), None, &|found| {
            choose(is(found, UNCLAIMED), Expr::Const(RUNNING), found.clone())
        });
        let (run, ()) = self.in_block(|f| {
            f.user_call(function, name, &[], span)?;
            f.emit(StmtKind::Rmw {
                target: None,
                address: control.clone(),
                op: RmwOp::Exchange(Expr::Const(DONE)),
            });
            Ok(())
        })?;
        let (wait, ()) = self.in_block(|f| {
            f.guessed_exchange(control.clone(), Some(&|found| is(found, DONE)), &|found| {
                found.clone()
            });
            Ok(())
        })?;
        self.emit(StmtKind::If {
            condition: is(&found, UNCLAIMED),
            then_branch: run,
            else_branch: wait,
        });
        Ok(Val::int(0))
    }

    /// The address of the synchronisation object a call `name` works on
    /// (its first argument), once `needed` arguments are there.
    fn sync_object(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
        needed: usize,
    ) -> LResult<Expr> {
        if arguments.len() < needed {
            return self.lw.error(
                span,
                format!("`{name}` needs at least {needed} argument(s)"),
                "too few arguments",
            );
        }
        let object = self.rvalue(&arguments[0])?;
        let barrier = name.starts_with("pthread_barrier_");
        let fits = match object.ty.target() {
            Some(CType::Array(element, 2)) => barrier && **element == CType::INT,
            Some(target) => !barrier && target.is_scalar(),
            None => false,
        };
        if !fits {
            let what = if barrier {
                "a `pthread_barrier_t`"
            } else {
                "its object"
            };
            return Err(Box::new(self.lw.source.diagnostic(
                arguments[0].span.start,
                arguments[0].span.end,
                format!("`{name}` needs a pointer to {what}"),
                "not a pointer to the object",
                Some("pass the object's address, e.g. `&object`".to_string()),
            )));
        }
        let object = self.save(object.expr, &object.ty);
        Ok(self.lw.location_of(object))
    }

    /// One atomic step on the synchronisation word at `address`: guesses
    /// the value it will find, assumes `admissible` of the guess when given
    /// (a call that waits: only executions where the word admits the step
    /// go on), and writes `desired` of the guess by a compare-and-swap that
    /// must find the guessed value (an execution that guessed wrong is cut
    /// off). Where `desired` keeps the value, the step fails without a
    /// change. Returns the guess: the value found.
    fn guessed_exchange(
        &mut self,
        address: Expr,
        admissible: Option<&dyn Fn(&Expr) -> Expr>,
        desired: &dyn Fn(&Expr) -> Expr,
    ) -> Expr {
        let guess = self.temp(&CType::INT);
        self.emit(StmtKind::Assign(Place::Local(guess), Expr::Nondet(Ty::INT)));
        let guess = Expr::Load(Place::Local(guess));
        if let Some(admissible) = admissible {
            self.emit(StmtKind::Assume(admissible(&guess)));
        }
        let found = self.temp(&CType::INT);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(found)),
            address,
            op: RmwOp::CompareExchange {
                expected: guess.clone(),
                desired: desired(&guess),
            },
        });
        self.emit(StmtKind::Assume(binary(
            BinaryOp::Eq,
            Expr::Load(Place::Local(found)),
            guess.clone(),
        )));
        guess
    }
}

fn positive(value: &Expr) -> Expr {
    binary(BinaryOp::Gt, value.clone(), Expr::Const(0))
}

fn decremented(value: &Expr) -> Expr {
    binary(BinaryOp::Sub, value.clone(), Expr::Const(1))
}

/// `condition ? then : otherwise`.
fn choose(condition: Expr, then: Expr, otherwise: Expr) -> Expr {
    Expr::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise))
}

/// An `int` value.
fn int(expr: Expr) -> Val {
    Val {
        expr,
        ty: CType::INT,
    }
}
