//! The state hash: FNV-1a over the full simulation state, what the determinism tests compare.

use crate::joint::{Axis, Joint, JointKind, Spring};
use crate::world::World;
use collide::AxisFeature;
use geom::{Real, Shape};
use slotmap::Key;

impl World {
    /// A 64-bit hash (FNV-1a) of the full simulation state: settings, step counter, unstepped
    /// time, every body with its handle and sleep state, the touching pairs, the persistent
    /// contact set, the kept contacts, the cached separating axes of the pairs of hulls and the
    /// joints (the last two left out when there are none, so that worlds without them hash as
    /// they did before they existed). Equal states give equal
    /// hashes on every platform; it is what the determinism tests compare.
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv::new();
        let c = &self.config;
        h.f32(c.dt);
        h.floats(c.gravity.iter());
        h.u64(c.response as u64);
        h.u64(u64::from(c.max_steps_per_advance));
        let solver = &c.solver;
        h.u64(u64::from(solver.substeps));
        // Hashed only when not 1, so that worlds solved with one soft iteration (as every
        // world was before it was a setting) hash as they did (the older formats' pinned
        // hashes hold).
        if solver.soft_iterations != 1 {
            h.u64(u64::from(solver.soft_iterations));
        }
        h.f32(solver.contact_hertz);
        h.f32(solver.contact_damping_ratio);
        h.f32(solver.max_push_out_speed);
        h.f32(solver.restitution_threshold);
        h.f32(solver.speculative_margin);
        h.f32(solver.rolling_resistance);
        // Hashed only when on, so that worlds without contact reuse hash as they did before
        // it existed (their pinned hashes hold).
        if solver.reuse_distance != 0.0 {
            h.f32(solver.reuse_distance);
        }
        h.u64(u64::from(c.sleep.enabled));
        h.f32(c.sleep.speed_threshold);
        h.f32(c.sleep.time_to_sleep);
        h.u64(self.step_count);
        h.f32(self.accumulator);
        for (handle, body) in &self.bodies {
            h.u64(handle.data().as_ffi());
            h.u64(body.kind as u64);
            h.floats(body.pose.translation.vector.iter());
            h.floats(body.pose.rotation.coords.iter());
            h.floats(body.linvel.iter());
            h.floats(body.angvel.iter());
            h.f32(body.mass);
            h.f32(body.material.restitution);
            h.f32(body.material.friction);
            match body.collider.shape {
                Shape::Cuboid { half_extents } => {
                    h.u64(0);
                    h.floats(half_extents.iter());
                }
                Shape::Ball { radius } => {
                    h.u64(1);
                    h.f32(radius);
                }
                Shape::Capsule {
                    half_height,
                    radius,
                } => {
                    h.u64(4);
                    h.f32(half_height);
                    h.f32(radius);
                }
                Shape::ConvexHull { ref hull } => {
                    h.u64(5);
                    h.u64(hull.digest());
                }
                Shape::Compound { ref compound } => {
                    h.u64(6);
                    h.u64(compound.digest());
                }
                Shape::TriMesh { ref mesh } => {
                    h.u64(2);
                    h.u64(mesh.digest());
                }
                Shape::HeightField { ref field } => {
                    h.u64(3);
                    h.u64(field.digest());
                }
            }
            h.floats(body.collider.offset.translation.vector.iter());
            h.floats(body.collider.offset.rotation.coords.iter());
            h.floats(body.visual.color.iter());
            h.f32(body.sleep.rest_time);
            h.u64(u64::from(body.sleep.asleep));
            h.u64(u64::from(body.sleep.disturbed));
            // Hashed only when not the default, so that worlds that use none of it hash as
            // they did before it existed (the pinned hashes hold).
            let control = &body.control;
            if *control != crate::body::BodyControl::default() {
                h.u64(0xC0);
                h.f32(control.linear_damping);
                h.f32(control.angular_damping);
                h.f32(control.gravity_scale);
                let locks = control.locks.linear.iter().chain(&control.locks.angular);
                h.u64(locks.fold(0, |bits, &locked| bits << 1 | u64::from(locked)));
                h.floats(control.force.iter());
                h.floats(control.torque.iter());
                if let Some(target) = &control.target {
                    h.u64(1);
                    h.floats(target.translation.vector.iter());
                    h.floats(target.rotation.coords.iter());
                }
                h.u64(control.user_data);
            }
            let flags = &body.collider.flags;
            if *flags != crate::body::ColliderFlags::default() {
                h.u64(0xF1);
                h.u64(flags.filter.category);
                h.u64(flags.filter.mask);
                h.u64(flags.filter.group as u32 as u64);
                h.u64(u64::from(flags.sensor));
                if let Some(speed) = flags.hit_speed {
                    h.f32(speed);
                }
                if let Some(resistance) = flags.rolling_resistance {
                    h.u64(0x52);
                    h.f32(resistance);
                }
                h.floats(flags.tangent_velocity.iter());
            }
            if body.collider.user_data != 0 {
                h.u64(0xDA);
                h.u64(body.collider.user_data);
            }
        }
        for (a, b) in &self.touching {
            h.u64(a.data().as_ffi());
            h.u64(b.data().as_ffi());
        }
        // Hashed only when there are any (worlds without sensors hash as before).
        if !self.sensing.is_empty() {
            h.u64(0x5E);
            for (sensor, visitor) in &self.sensing {
                h.u64(sensor.data().as_ffi());
                h.u64(visitor.data().as_ffi());
            }
        }
        for entry in &self.contact_cache {
            h.u64(entry.a.data().as_ffi());
            h.u64(entry.b.data().as_ffi());
            for point in &entry.points {
                h.u64(u64::from(point.id.0));
                h.f32(point.normal_impulse);
            }
            h.floats(entry.friction_impulse.iter());
            h.f32(entry.twist_impulse);
            h.floats(entry.tilt_impulse.iter());
        }
        for kept in &self.kept_contacts {
            h.u64(kept.a.data().as_ffi());
            h.u64(kept.b.data().as_ffi());
            h.floats(kept.relative.translation.vector.iter());
            h.floats(kept.relative.rotation.coords.iter());
            h.floats(kept.normal.iter());
            for point in &kept.points {
                h.floats(point.on_a.coords.iter());
                h.floats(point.on_b.coords.iter());
                h.u64(u64::from(point.id.0));
            }
        }
        if !self.axis_cache.is_empty() {
            // Only worlds with hulls have any.
            h.u64(0xA5);
            for entry in &self.axis_cache {
                h.u64(entry.a.data().as_ffi());
                h.u64(entry.b.data().as_ffi());
                let (kind, first, second) = match entry.axis.feature {
                    AxisFeature::FaceA(f) => (0, f, 0),
                    AxisFeature::FaceB(f) => (1, f, 0),
                    AxisFeature::Edges(ea, eb) => (2, ea, eb),
                };
                // (The parts above the feature: zero for a pair without a compound, whose
                // word is then what it was before compounds kept axes.)
                let [part_a, part_b] = entry.parts.map(u64::from);
                h.u64(
                    part_a << 48
                        | part_b << 40
                        | kind << 32
                        | u64::from(first) << 16
                        | u64::from(second),
                );
                h.f32(entry.axis.separation);
            }
        }
        if !self.joints.is_empty() {
            // Only worlds with joints read it.
            h.u64(u64::from(self.config.solver.joint_iterations));
        }
        for (handle, joint) in &self.joints {
            h.u64(handle.data().as_ffi());
            h.joint(joint);
        }
        h.0
    }
}

impl Fnv {
    fn joint(&mut self, joint: &Joint) {
        for body in joint.bodies {
            self.u64(body.data().as_ffi());
        }
        for frame in &joint.frames {
            self.floats(frame.translation.vector.iter());
            self.floats(frame.rotation.coords.iter());
        }
        self.u64(u64::from(joint.collide_connected));
        self.option(joint.break_force);
        self.option(joint.break_torque);
        self.spring(Some(joint.softness));
        match &joint.kind {
            JointKind::Spherical {
                cone,
                twist,
                friction,
                spring,
            } => {
                self.u64(0);
                self.option(*cone);
                self.limits(twist);
                self.f32(*friction);
                // Only when set, so that joints without one hash as before.
                if spring.is_some() {
                    self.u64(0x5A);
                    self.spring(*spring);
                }
            }
            JointKind::Revolute(axis) => {
                self.u64(1);
                self.axis(axis);
            }
            JointKind::Prismatic(axis) => {
                self.u64(2);
                self.axis(axis);
            }
            JointKind::Weld { linear, angular } => {
                self.u64(3);
                self.spring(*linear);
                self.spring(*angular);
            }
            JointKind::Distance {
                length,
                min,
                max,
                spring,
            } => {
                self.u64(4);
                self.floats([*length, *min, *max].iter());
                self.spring(*spring);
            }
        }
        let i = &joint.impulses;
        self.floats(i.linear.iter());
        self.floats(i.angular.iter());
        self.floats(i.friction.iter());
        self.floats([i.spring, i.motor, i.lower, i.upper, i.cone].iter());
        self.floats(joint.force.iter());
        self.floats(joint.torque.iter());
        // Only when set, so that joints without it hash as before.
        if joint.user_data != 0 {
            self.u64(0xDA);
            self.u64(joint.user_data);
        }
    }

    fn option(&mut self, x: Option<Real>) {
        self.u64(u64::from(x.is_some()));
        self.f32(x.unwrap_or(0.0));
    }

    fn limits(&mut self, limits: &Option<[Real; 2]>) {
        self.u64(u64::from(limits.is_some()));
        self.floats(limits.unwrap_or([0.0; 2]).iter());
    }

    fn spring(&mut self, spring: Option<Spring>) {
        self.u64(u64::from(spring.is_some()));
        let s = spring.unwrap_or(Spring {
            hertz: 0.0,
            damping_ratio: 0.0,
        });
        self.floats([s.hertz, s.damping_ratio].iter());
    }

    fn axis(&mut self, axis: &Axis) {
        self.limits(&axis.limits);
        self.spring(axis.spring);
        self.f32(axis.target);
        self.u64(u64::from(axis.motor.is_some()));
        if let Some(motor) = axis.motor {
            self.floats([motor.speed, motor.max_force].iter());
        }
        self.f32(axis.friction);
    }
}

/// FNV-1a, 64 bits: tiny, fixed, and the same everywhere (std's hashers may change).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.bytes(&v.to_bits().to_le_bytes());
    }
    fn floats<'a>(&mut self, values: impl Iterator<Item = &'a f32>) {
        for v in values {
            self.f32(*v);
        }
    }
}
