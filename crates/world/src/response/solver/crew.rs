//! A group's solve on several threads at once, stage by stage (Box3D's `b3SolverStage` and
//! `b3ExecuteMainStage`): every thread of the crew runs the same program, the list of the
//! group's stages; a stage's work is cut into blocks, which the threads claim one at a time;
//! a thread that runs out of blocks waits until every block of the stage is done, then goes on
//! to the next stage.
//!
//! Nothing waits for a thread to arrive: the calling thread alone can claim every block, and a
//! helper that starts late finds the stages before it done and joins where the others are.
//! A block is claimed by raising its counter to the stage's number (so one counter per block
//! serves every stage), and the blocks done are counted across the program: a stage is over
//! when the count reaches the blocks of every stage up to it.
//!
//! Which thread runs a block changes nothing: each block computes from what the stages before
//! left (the crew's wait orders them) and writes only its own part (`shared`). The same bits
//! on any number of threads.

// Without the parallel feature every program runs alone: the crew goes unused.
#![cfg_attr(not(feature = "parallel"), allow(dead_code))]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Per block, the last stage that claimed it; the blocks done so far; whether the program is
/// over.
#[derive(Debug)]
pub(crate) struct Crew {
    /// Per block of a stage (as many as the largest stage has), the number of the last stage
    /// (counted from 1) in which a thread claimed it.
    claims: Vec<AtomicUsize>,
    /// Blocks done, counted across the program.
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

/// One thread's place in the program: the stage it is at (counted from 1) and the blocks done
/// before it; which of the crew's `threads` it is. Alone: no crew, every block its own, no
/// counter touched.
pub(crate) struct Member<'a> {
    crew: Option<&'a Crew>,
    stage: usize,
    base: usize,
    index: usize,
    threads: usize,
}

impl Member<'_> {
    /// Runs stage `work` over `blocks` blocks (at most the crew's largest stage): each block
    /// this thread claims, then waits until all are done. Every thread of the crew calls the
    /// same stages in the same order.
    ///
    /// Thread `i` of `n` claims from block `i * blocks / n` on, wrapping round (Box3D's
    /// `b3ExecuteStage`): each thread mostly takes the same share of every stage, so that a
    /// colour's constraints, which lie in pair order, and the bodies they move stay in the
    /// cache of the core that solved them the pass before.
    #[inline]
    pub(crate) fn stage(&mut self, blocks: usize, work: impl Fn(usize)) {
        if blocks == 0 {
            return;
        }
        let Some(crew) = self.crew else {
            (0..blocks).for_each(work);
            return;
        };
        assert!(blocks <= crew.claims.len(), "a stage larger than its crew");
        self.stage += 1;
        let (stage, end) = (self.stage, self.base + blocks);
        if crew.done.load(Ordering::Acquire) < end {
            let start = self.index * blocks / self.threads;
            for block in (start..blocks).chain(0..start) {
                let claim = &crew.claims[block];
                if claim.load(Ordering::Relaxed) < stage
                    && claim.fetch_max(stage, Ordering::Relaxed) < stage
                {
                    let _guard = Guard(crew);
                    work(block);
                    // Release: what the block wrote, for whoever waits on `done`.
                    crew.done.fetch_add(1, Ordering::Release);
                }
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
/// returns when it is over (every stage done); no stage has more than `blocks` blocks. With
/// one thread, or without the parallel feature, the caller runs it alone.
pub(crate) fn run(threads: usize, blocks: usize, program: impl Fn(&mut Member<'_>) + Sync) {
    #[cfg(feature = "parallel")]
    if threads > 1 {
        let crew = Crew {
            claims: (0..blocks.max(1)).map(|_| AtomicUsize::new(0)).collect(),
            done: AtomicUsize::new(0),
            over: AtomicBool::new(false),
            failed: AtomicBool::new(false),
        };
        let start = |index: usize| {
            if !crew.over.load(Ordering::Acquire) {
                program(&mut Member {
                    crew: Some(&crew),
                    stage: 0,
                    base: 0,
                    index,
                    threads,
                });
            }
        };
        rayon::scope(|scope| {
            let start = &start;
            for index in 1..threads {
                scope.spawn(move |_| start(index));
            }
            start(0);
            crew.over.store(true, Ordering::Release);
        });
        return;
    }
    let _ = (threads, blocks);
    program(&mut Member {
        crew: None,
        stage: 0,
        base: 0,
        index: 0,
        threads: 1,
    });
}

// (The crews need rayon's pools: without the parallel feature there is one thread, alone.)
#[cfg(all(test, feature = "parallel"))]
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
                run(threads, 7, |member| {
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
                run(2, 4, |member| {
                    for _ in 0..100 {
                        member.stage(4, |block| assert!(block != 3, "block 3"));
                    }
                });
            });
        }));
        assert!(result.is_err());
    }
}
