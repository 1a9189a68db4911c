//! Running a stage over the constraints, colour by colour, on one thread or several.
//!
//! The constraints of one colour move disjoint bodies (`color`), so within a colour the order
//! does not matter: each constraint reads and writes only its own two bodies. A colour large
//! enough is split into blocks that rayon's threads solve at once, each constraint working on
//! copies of its bodies and leaving their new velocities in its own output slot; the slots are
//! then written back to the bodies in order. A fixed body (static, sleeping or kinematic: zero
//! inverse mass), which constraints of one colour may share, is never written: no impulse
//! changes it. So every constraint computes on the same values as it would on one thread, and
//! a step gives the same bits at any thread count (`tests/solver_determinism.rs`).

// Without the parallel feature the blocks and their outputs go unused.
#![cfg_attr(not(feature = "parallel"), allow(dead_code))]

use super::body::SolverBody;
use super::color::{COLORS, Coloring};
use super::contact::ContactConstraint;
use geom::Vector3;

/// Constraints per block handed to a thread: below about this many, a thread costs more to
/// wake than the block takes to solve.
const BLOCK: usize = 128;

/// What a constraint changes in a body during a stage.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Velocities {
    linvel: Vector3,
    angvel: Vector3,
    push_linvel: Vector3,
    push_angvel: Vector3,
}

impl Velocities {
    fn of(body: &SolverBody) -> Self {
        Self {
            linvel: body.linvel,
            angvel: body.angvel,
            push_linvel: body.push_linvel,
            push_angvel: body.push_angvel,
        }
    }

    /// Writes the velocities into `body`, unless it is fixed.
    fn store(&self, body: &mut SolverBody) {
        if body.inverse_mass != 0.0 {
            body.linvel = self.linvel;
            body.angvel = self.angvel;
            body.push_linvel = self.push_linvel;
            body.push_angvel = self.push_angvel;
        }
    }
}

/// Runs `stage` on every constraint with its two bodies: the overflow first, on this thread,
/// then each colour, its blocks on rayon's threads when there are several. `outputs` is a
/// buffer the parallel path writes the bodies' new velocities into.
pub(crate) fn for_each_constraint<F>(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    coloring: &Coloring,
    outputs: &mut Vec<[Velocities; 2]>,
    stage: F,
) where
    F: Fn(&mut ContactConstraint, &mut SolverBody, &mut SolverBody) + Sync,
{
    let overflow = coloring.starts[0] as usize;
    in_order(bodies, &mut constraints[..overflow], &stage);
    #[cfg(feature = "parallel")]
    let parallel = rayon::current_num_threads() > 1;
    for color in 0..COLORS {
        let range = coloring.starts[color] as usize..coloring.starts[color + 1] as usize;
        let constraints = &mut constraints[range];
        #[cfg(feature = "parallel")]
        if parallel && constraints.len() >= 2 * BLOCK {
            solve_parallel(bodies, constraints, outputs, &stage);
            continue;
        }
        in_order(bodies, constraints, &stage);
    }
    #[cfg(not(feature = "parallel"))]
    let _ = outputs;
}

/// Runs `stage` on `constraints` one after the other, on this thread.
fn in_order<F>(bodies: &mut [SolverBody], constraints: &mut [ContactConstraint], stage: &F)
where
    F: Fn(&mut ContactConstraint, &mut SolverBody, &mut SolverBody),
{
    for c in constraints {
        let (a, b) = pair_of(bodies, c);
        stage(c, a, b);
    }
}

/// One colour's constraints on rayon's threads, through `outputs`.
#[cfg(feature = "parallel")]
fn solve_parallel<F>(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    outputs: &mut Vec<[Velocities; 2]>,
    stage: &F,
) where
    F: Fn(&mut ContactConstraint, &mut SolverBody, &mut SolverBody) + Sync,
{
    use rayon::prelude::*;
    outputs.resize(constraints.len(), Default::default());
    let outputs = &mut outputs[..constraints.len()];
    let shared: &[SolverBody] = bodies;
    constraints
        .par_chunks_mut(BLOCK)
        .zip(outputs.par_chunks_mut(BLOCK))
        .for_each(|(block, out)| {
            for (c, out) in block.iter_mut().zip(out) {
                let (mut a, mut b) = (shared[c.a as usize], shared[c.b as usize]);
                stage(c, &mut a, &mut b);
                *out = [Velocities::of(&a), Velocities::of(&b)];
            }
        });
    for (c, [a, b]) in constraints.iter().zip(outputs.iter()) {
        a.store(&mut bodies[c.a as usize]);
        b.store(&mut bodies[c.b as usize]);
    }
}

/// Runs `work` (which solves `constraints` constraints) on one of rayon's threads when it
/// will spread colours over them: a parallel loop started from a thread outside the pool
/// waits on a lock every time, one started from inside it is handed out at little cost.
pub(crate) fn on_worker(constraints: usize, work: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    if constraints >= 2 * BLOCK
        && rayon::current_num_threads() > 1
        && rayon::current_thread_index().is_none()
    {
        rayon::scope(|_| work());
        return;
    }
    let _ = constraints;
    work();
}

/// The two bodies of a constraint, borrowed from the dense array. A fixed body's state is
/// shared by all its constraints and never changes (its inverse mass and inertia are zero, so
/// every impulse adds exactly zero to it).
fn pair_of<'a>(
    bodies: &'a mut [SolverBody],
    c: &ContactConstraint,
) -> (&'a mut SolverBody, &'a mut SolverBody) {
    let (i, j) = (c.a as usize, c.b as usize);
    debug_assert!(i != j);
    if i < j {
        let (low, high) = bodies.split_at_mut(j);
        (&mut low[i], &mut high[0])
    } else {
        let (low, high) = bodies.split_at_mut(i);
        (&mut high[0], &mut low[j])
    }
}
