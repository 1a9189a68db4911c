//! The contact solver (`Response::Solver`): the "soft step" of Box2D v3 and Box3D (E. Catto,
//! "Solver2D", 2024), which rapier also runs. The stages, in the order they run:
//!
//! 1. prepare, once per step: for each contact pair with a dynamic body, anchors relative to
//!    the centres of mass, effective masses, the approach speed, and last step's impulses
//!    matched by feature id from the persistent contact set (warm starting);
//! 2. per substep (`SolverConfig::substeps`, `h = dt / substeps`):
//!    integrate velocities (gravity, gyroscopic term), warm start (apply the accumulated
//!    impulses), solve (one soft iteration with position bias and speculative contacts; overlaps
//!    deeper than `contact::DEEP_OVERLAP` push out through push-out velocities instead),
//!    integrate positions (velocity plus push-out, which is then dropped), relax (one rigid
//!    iteration, with friction);
//! 3. restitution, once;
//! 4. store the impulses in the persistent contact set; write poses and velocities back.
//!
//! Awake bodies are solved densely in handle order (static and sleeping ones share one fixed
//! state) and constraints in colour order (`color`: the overflow, then each colour in pair
//! order): the same world gives the same bits.

mod body;
mod color;
mod contact;
mod schedule;
mod soft;

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::config::WorldConfig;
use crate::contact::{CachedContact, ContactPair};
use crate::step::sleep::is_sleeping_pair;
use body::SolverBody;
use color::Coloring;
use contact::{ContactConstraint, SolveSettings};
use geom::{Matrix3, Real, UnitQuaternion};
use schedule::{Velocities, for_each_constraint};
use slotmap::SlotMap;

/// The solver's buffers, refilled every step (never saved, never change a result).
#[derive(Debug, Clone, Default)]
pub(crate) struct Solver {
    /// Per body (dense handle order), its slot in `states`: 0, a shared fixed state, for a
    /// static or sleeping body; its own slot for an awake dynamic or kinematic one. A world
    /// that mostly sleeps solves only its awake bodies.
    slots: Vec<u32>,
    /// Per slot, the solver's state of the body.
    states: Vec<SolverBody>,
    /// Per slot, for integration: kind, rotation at the start of the step, body-frame inertia
    /// when the body feels a gyroscopic torque (`None` when its inertia is the same about every
    /// axis, as a cube's or a ball's: `w x I w` is then zero).
    kinds: Vec<BodyKind>,
    rotations: Vec<UnitQuaternion>,
    inertias: Vec<Option<Matrix3>>,
    constraints: Vec<ContactConstraint>,
    /// Per constraint in pair order, the index of its pair in the step's contacts; its place in
    /// `constraints` is `coloring.slots`.
    constraint_pairs: Vec<usize>,
    /// The constraints' colours: `constraints` is in their solve order.
    coloring: Coloring,
    /// The bodies' new velocities from a colour solved on several threads (`schedule`).
    outputs: Vec<[Velocities; 2]>,
    /// Last step's persistent contact set, read while this step's is written.
    previous_cache: Vec<CachedContact>,
}

impl Solver {
    /// Runs the soft step over `dt`. `contacts` are this step's contacts (speculative ones
    /// included) with `indices`, the dense indices of their bodies; `cache` holds last step's
    /// impulses and is replaced by this step's. Sleeping bodies are held fixed; the impulses of
    /// pairs that sleep (untested this step) are kept as they were. Returns, through
    /// `touching`, whether each contact touched (overlapped, or was pushed apart by the
    /// solver).
    pub(crate) fn step(
        &mut self,
        bodies: &mut SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        cache: &mut Vec<CachedContact>,
        config: &WorldConfig,
        touching: &mut Vec<bool>,
    ) {
        let substeps = config.solver.substeps.max(1);
        let h = config.dt / substeps as Real;
        std::mem::swap(cache, &mut self.previous_cache);
        self.gather(bodies);
        self.prepare(bodies, contacts, indices, &config.solver);
        let settings = SolveSettings::new(&config.solver, h);
        schedule::on_worker(self.constraints.len(), || {
            self.substeps(config, &settings, h, substeps);
        });
        self.store_impulses(bodies, contacts, cache, touching);
        for (body, &slot) in bodies.values_mut().zip(&self.slots) {
            if slot != 0 {
                body::finish(body, &self.states[slot as usize]);
            }
        }
    }

    /// The substeps and restitution.
    fn substeps(&mut self, config: &WorldConfig, settings: &SolveSettings, h: Real, substeps: u32) {
        let threshold = config.solver.restitution_threshold;
        for _ in 0..substeps {
            self.integrate_velocities(&config.gravity, h);
            self.each_constraint(contact::warm_start);
            self.each_constraint(|c, a, b| contact::solve(c, a, b, settings, true));
            self.integrate_positions(h, config.solver.max_push_out_speed);
            self.each_constraint(|c, a, b| contact::solve(c, a, b, settings, false));
        }
        self.each_constraint(|c, a, b| contact::restitution(c, a, b, threshold));
    }

    /// Runs a stage on every constraint, colour by colour (`schedule`).
    fn each_constraint(
        &mut self,
        stage: impl Fn(&mut ContactConstraint, &mut SolverBody, &mut SolverBody) + Sync,
    ) {
        for_each_constraint(
            &mut self.states,
            &mut self.constraints,
            &self.coloring,
            &mut self.outputs,
            stage,
        );
    }

    /// The solver state of every awake dynamic or kinematic body, in handle order after the
    /// shared fixed state in slot 0, which static and sleeping bodies use.
    fn gather(&mut self, bodies: &SlotMap<BodyHandle, RigidBody>) {
        self.slots.clear();
        self.states.clear();
        self.kinds.clear();
        self.rotations.clear();
        self.inertias.clear();
        self.states.push(SolverBody::FIXED);
        self.kinds.push(BodyKind::Static);
        self.rotations.push(UnitQuaternion::identity());
        self.inertias.push(None);
        for body in bodies.values() {
            if body.sleep.asleep || body.kind == BodyKind::Static {
                self.slots.push(0);
                continue;
            }
            self.slots.push(self.states.len() as u32);
            self.states.push(SolverBody::of(body));
            self.kinds.push(body.kind);
            self.rotations.push(body.pose.rotation);
            let inertia = body.mass_properties.inertia;
            let isotropic = inertia == Matrix3::identity() * inertia.m11;
            self.inertias.push((!isotropic).then_some(inertia));
        }
    }

    /// One constraint per contact that involves an awake dynamic body, warm started from last
    /// step's contact set (sorted by pair, as `contacts` are: one merge walk), placed in the
    /// solve order of its colour.
    fn prepare(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        indices: &[(u32, u32)],
        solver: &crate::config::SolverConfig,
    ) {
        self.constraint_pairs.clear();
        self.coloring.begin(self.states.len());
        for (k, (pair, &(i, j))) in contacts.iter().zip(indices).enumerate() {
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            let fixed = (
                self.states[i as usize].inverse_mass == 0.0,
                self.states[j as usize].inverse_mass == 0.0,
            );
            if (fixed.0 && fixed.1) || !bodies.contains_key(pair.a) || !bodies.contains_key(pair.b)
            {
                continue;
            }
            self.coloring.add((i, j), fixed);
            self.constraint_pairs.push(k);
        }
        self.coloring.finish();
        // Constraints are filled in place, reusing last step's slots.
        self.constraints
            .resize_with(self.constraint_pairs.len(), ContactConstraint::default);
        let mut cached = self.previous_cache.iter().peekable();
        for (&k, &slot) in self.constraint_pairs.iter().zip(&self.coloring.slots) {
            let (pair, (i, j)) = (&contacts[k], indices[k]);
            let (i, j) = (self.slots[i as usize], self.slots[j as usize]);
            while cached.next_if(|c| (c.a, c.b) < (pair.a, pair.b)).is_some() {}
            let warm = cached.next_if(|c| (c.a, c.b) == (pair.a, pair.b));
            contact::prepare(
                &mut self.constraints[slot as usize],
                pair,
                (i, j),
                (&bodies[pair.a], &bodies[pair.b]),
                (&self.states[i as usize], &self.states[j as usize]),
                warm,
                (solver.speculative_margin, solver.rolling_resistance),
            );
        }
    }

    fn integrate_velocities(&mut self, gravity: &geom::Vector3, h: Real) {
        for (k, state) in self.states.iter_mut().enumerate() {
            if self.kinds[k] == BodyKind::Dynamic {
                let gyroscopic = self.inertias[k]
                    .as_ref()
                    .map(|inertia| (state.delta_rotation * self.rotations[k], inertia));
                body::integrate_velocity(state, gyroscopic, gravity, h);
            }
        }
    }

    fn integrate_positions(&mut self, h: Real, max_push_out_speed: Real) {
        for (k, state) in self.states.iter_mut().enumerate() {
            if self.kinds[k] != BodyKind::Static {
                body::integrate_position(state, h, max_push_out_speed);
            }
        }
    }

    /// The new persistent contact set, in pair order (pairs that carried no impulse have
    /// nothing to warm start and are left out; pairs that sleep keep theirs, moved from last
    /// step's set), and which contacts touched.
    fn store_impulses(
        &mut self,
        bodies: &SlotMap<BodyHandle, RigidBody>,
        contacts: &[ContactPair],
        cache: &mut Vec<CachedContact>,
        touching: &mut Vec<bool>,
    ) {
        cache.clear();
        touching.clear();
        touching.extend(
            contacts
                .iter()
                .map(|pair| pair.contact.points.iter().any(|p| p.depth >= 0.0)),
        );
        let sleeping_pair = |a, b| match (bodies.get(a), bodies.get(b)) {
            (Some(a), Some(b)) => is_sleeping_pair(a, b),
            _ => false,
        };
        let mut previous = std::mem::take(&mut self.previous_cache);
        previous.retain(|e| sleeping_pair(e.a, e.b));
        if !self.constraints.iter().any(contact::pushed) {
            // Nothing awake touches: the set is the sleeping pairs' entries, kept in place.
            std::mem::swap(cache, &mut previous);
            self.previous_cache = previous;
            return;
        }
        let mut sleeping = previous.drain(..).peekable();
        for (&k, &slot) in self.constraint_pairs.iter().zip(&self.coloring.slots) {
            let c = &self.constraints[slot as usize];
            if contact::pushed(c) {
                touching[k] = true;
                let entry = contact::store_impulses(c, &contacts[k]);
                while let Some(old) = sleeping.next_if(|e| (e.a, e.b) < (entry.a, entry.b)) {
                    cache.push(old);
                }
                cache.push(entry);
            }
        }
        // Pairs that sleep keep their impulses for when they wake.
        cache.extend(sleeping);
        self.previous_cache = previous;
    }
}
