//! A group's solve on several threads at once, stage by stage (Box3D's `b3SolverStage` and
//! `b3ExecuteMainStage`): every thread of the crew runs the same program, the list of the
//! group's stages; a stage's work is cut into blocks, which the threads claim one at a time;
//! a thread that runs out of blocks waits until every block of the stage is done, then goes on
//! to the next stage.
//!
//! Nothing waits for a thread to arrive: the calling thread alone can claim every block, and a
//! helper that starts late finds the stages before it done (their blocks claimed) and joins
//! where the others are. Blocks are counted across the program (a stage's are numbered after
//! the stages' before it), so two counters serve every stage: `claimed` moves from one
//! stage's blocks to the next only once the stage is done, because no thread claims past the
//! stage it is in, and no thread enters a stage before every earlier block is done.
//!
//! Which thread runs a block changes nothing: each block computes from what the stages before
//! left (the crew's wait orders them) and writes only its own part (`shared`). The same bits
//! on any number of threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The blocks of a program claimed and done so far, and whether the program is over.
#[derive(Debug, Default)]
pub(crate) struct Crew {
    claimed: AtomicUsize,
    done: AtomicUsize,
    over: AtomicBool,
    /// A block panicked: the others stop waiting for it (and panic too, so that the panic
    /// reaches the caller instead of the crew waiting for ever).
    failed: AtomicBool,
}

/// Marks the crew failed if the block it guards unwinds.
struct Guard<'a>(&'a Crew);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.failed.store(true, Ordering::Release);
        }
    }
}

/// One thread's place in the program: the first block of the stage it is at (alone: no crew,
/// every block its own, no counter touched).
pub(crate) struct Member<'a> {
    crew: Option<&'a Crew>,
    base: usize,
}

impl Member<'_> {
    /// Runs stage `work` over `blocks` blocks: each block this thread claims, then waits until
    /// all are done. Every thread of the crew calls the same stages in the same order.
    #[inline]
    pub(crate) fn stage(&mut self, blocks: usize, work: impl Fn(usize)) {
        if blocks == 0 {
            return;
        }
        let Some(crew) = self.crew else {
            (0..blocks).for_each(work);
            return;
        };
        let (first, end) = (self.base, self.base + blocks);
        let mut next = crew.claimed.load(Ordering::Relaxed);
        while next < end {
            // `next >= first`: every block before this stage was claimed before any thread
            // could reach it.
            match crew.claimed.compare_exchange_weak(
                next,
                next + 1,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    let _guard = Guard(crew);
                    work(next - first);
                    // Release: what the block wrote, for whoever waits on `done`.
                    crew.done.fetch_add(1, Ordering::Release);
                    next = crew.claimed.load(Ordering::Relaxed);
                }
                Err(now) => next = now,
            }
        }
        let mut spins = 0u32;
        while crew.done.load(Ordering::Acquire) < end {
            assert!(
                !crew.failed.load(Ordering::Acquire),
                "a block of the solver's stage panicked on another thread"
            );
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                // Another thread holds a block but not a core: let it run.
                std::thread::yield_now();
            }
        }
        self.base = end;
    }

    /// A stage of one block, which one thread runs while the others wait.
    #[inline]
    pub(crate) fn alone(&mut self, work: impl Fn()) {
        self.stage(1, |_| work());
    }
}

/// Runs `program` on up to `threads` threads of rayon's pool, the caller among them, and
/// returns when it is over (every stage done). With one thread, or without the parallel
/// feature, the caller runs it alone.
pub(crate) fn run(threads: usize, program: impl Fn(&mut Member<'_>) + Sync) {
    let crew = Crew::default();
    let start = |crew: &Crew| {
        if !crew.over.load(Ordering::Acquire) {
            program(&mut Member {
                crew: Some(crew),
                base: 0,
            });
        }
    };
    #[cfg(feature = "parallel")]
    if threads > 1 {
        rayon::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| start(&crew));
            }
            start(&crew);
            crew.over.store(true, Ordering::Release);
        });
        return;
    }
    let _ = threads;
    program(&mut Member {
        crew: None,
        base: 0,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn every_block_runs_once_and_each_stage_after_the_last() {
        // One thread alone, and crews of 2, 3 and 8 on pools of as many (8: more than cores).
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let log = Mutex::new(Vec::new());
            pool.install(|| {
                run(threads, |member| {
                    for stage in 0..50 {
                        let blocks = stage % 7;
                        member.stage(blocks, |block| {
                            log.lock().expect("the log").push((stage, block));
                        });
                    }
                });
            });
            let log = log.into_inner().expect("the log");
            // Stages in order, each block once.
            let stages: Vec<usize> = log.iter().map(|&(s, _)| s).collect();
            assert!(stages.is_sorted(), "{threads} threads");
            let mut sorted = log.clone();
            sorted.sort_unstable();
            sorted.dedup();
            let expected: usize = (0..50).map(|s| s % 7).sum();
            assert_eq!(sorted.len(), expected);
            assert_eq!(log.len(), expected);
        }
    }

    #[test]
    fn a_block_that_panics_reaches_the_caller_instead_of_hanging() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                run(2, |member| {
                    for _ in 0..100 {
                        member.stage(4, |block| assert!(block != 3, "block 3"));
                    }
                });
            });
        }));
        assert!(result.is_err());
    }
}
