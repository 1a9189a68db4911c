//! The world's joint API: insert, remove, read and change joints. Every change is checked
//! first (the error names what was wrong, and then nothing changes) and wakes the joint's
//! bodies.

use super::{Joint, JointDesc, JointEvent, JointHandle, JointKind, JointReading, Motor, Spring};
use crate::body::{BodyHandle, RigidBody};
use crate::error::WorldError;
use crate::world::World;
use geom::{Real, Vector3};

impl World {
    /// Adds a joint between two bodies of this world; its frames are placed from the bodies'
    /// poses now when `desc` gives them in world space. Refused by name, with the world
    /// unchanged: an unknown or removed body, a body joined to itself, a bad number, axis or
    /// limit. Both bodies wake.
    pub fn insert_joint(&mut self, desc: JointDesc) -> Result<JointHandle, WorldError> {
        let [a, b] = desc.bodies;
        if a == b {
            return Err(WorldError::JointToItself);
        }
        let (Some(body_a), Some(body_b)) = (self.bodies.get(a), self.bodies.get(b)) else {
            return Err(WorldError::UnknownBody);
        };
        let joint = desc.build(body_a, body_b)?;
        let handle = self.joints.insert(joint.clone());
        self.link(handle, &joint);
        self.wake_joint_bodies([a, b]);
        Ok(handle)
    }

    /// Removes a joint and returns it; `None` for an unknown, removed or broken one. Its
    /// bodies wake.
    pub fn remove_joint(&mut self, handle: JointHandle) -> Option<Joint> {
        let joint = self.joints.remove(handle)?;
        self.unlink(handle, &joint);
        self.wake_joint_bodies(joint.bodies);
        Some(joint)
    }

    /// The joint of `handle`, if it is still in the world.
    pub fn joint(&self, handle: JointHandle) -> Option<&Joint> {
        self.joints.get(handle)
    }

    /// Every joint with its handle, in handle order.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints.iter()
    }

    /// The number of joints.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Joints broken in the last step, each reported once, in handle order.
    pub fn joint_events(&self) -> &[JointEvent] {
        &self.joint_events
    }

    /// The joint of `handle` to change; the error names an unknown or removed handle.
    fn joint_mut(&mut self, handle: JointHandle) -> Result<&mut Joint, WorldError> {
        self.solver.joints_edited();
        self.joints.get_mut(handle).ok_or(WorldError::UnknownJoint)
    }

    /// Replaces a joint's kind and settings (checked first); its impulses restart from zero
    /// when the kind changes, and its bodies wake.
    pub fn set_joint_kind(
        &mut self,
        handle: JointHandle,
        kind: JointKind,
    ) -> Result<(), WorldError> {
        let joint = self.joint_mut(handle)?;
        super::validate::check_kind("kind", &kind)?;
        if std::mem::discriminant(&joint.kind) != std::mem::discriminant(&kind) {
            joint.impulses = Default::default();
        }
        joint.kind = kind;
        let bodies = joint.bodies;
        self.wake_joint_bodies(bodies);
        Ok(())
    }

    /// Sets the softness of the rows holding a joint together (default
    /// [`JOINT_SOFTNESS`](crate::JOINT_SOFTNESS)), checked first; its bodies wake.
    pub fn set_joint_softness(
        &mut self,
        handle: JointHandle,
        softness: Spring,
    ) -> Result<(), WorldError> {
        let joint = self.joint_mut(handle)?;
        super::validate::check_spring("softness", &softness)?;
        joint.softness = softness;
        let bodies = joint.bodies;
        self.wake_joint_bodies(bodies);
        Ok(())
    }

    /// Stores a word for the user on a joint (saved and hashed with it, never read by the
    /// engine); the error names an unknown or removed handle.
    pub fn set_joint_user_data(
        &mut self,
        handle: JointHandle,
        data: u64,
    ) -> Result<(), WorldError> {
        let joint = self.joint_mut(handle)?;
        joint.user_data = data;
        Ok(())
    }

    /// Sets or clears a hinge's or slider's motor (see [`World::set_joint_kind`]).
    pub fn set_joint_motor(
        &mut self,
        handle: JointHandle,
        motor: Option<Motor>,
    ) -> Result<(), WorldError> {
        let mut kind = *self.joint(handle).ok_or(WorldError::UnknownJoint)?.kind();
        if let JointKind::Revolute(axis) | JointKind::Prismatic(axis) = &mut kind {
            axis.motor = motor;
        }
        self.set_joint_kind(handle, kind)
    }

    /// Sets or clears a joint's limits: a hinge's or slider's, a spherical joint's twist, a
    /// distance joint's `[min, max]` (see [`World::set_joint_kind`]).
    pub fn set_joint_limits(
        &mut self,
        handle: JointHandle,
        limits: Option<[Real; 2]>,
    ) -> Result<(), WorldError> {
        let mut kind = *self.joint(handle).ok_or(WorldError::UnknownJoint)?.kind();
        match &mut kind {
            JointKind::Revolute(axis) | JointKind::Prismatic(axis) => axis.limits = limits,
            JointKind::Spherical { twist, .. } => *twist = limits,
            JointKind::Distance { min, max, .. } => {
                [*min, *max] = limits.unwrap_or([0.0, crate::limits::MAX_SIZE]);
            }
            JointKind::Weld { .. } => {}
        }
        self.set_joint_kind(handle, kind)
    }

    /// A joint's angle, translation, length and their speeds from its bodies' poses and
    /// velocities now, and the force and torque of the last step.
    pub fn joint_reading(&self, handle: JointHandle) -> Result<JointReading, WorldError> {
        let joint = self.joints.get(handle).ok_or(WorldError::UnknownJoint)?;
        let [a, b] = joint.bodies.map(|h| &self.bodies[h]);
        Ok(reading(joint, a, b))
    }

    /// Wakes both bodies of a joint just made, changed or removed (with their islands, at the
    /// next step).
    fn wake_joint_bodies(&mut self, bodies: [BodyHandle; 2]) {
        for handle in bodies {
            if let Some(body) = self.bodies.get_mut(handle) {
                body.sleep.wake();
                self.active.note(handle);
            }
        }
    }

    /// Removes the joints of a body being removed (their other bodies wake): found through
    /// `attached` and taken out of what is derived from the joints one by one, so that
    /// removing a body costs its joints, not every joint (Box3D's rain removes 420 jointed
    /// bodies at once). They are removed in handle order, as a pass over every joint would, so
    /// that the joints inserted next get the same handles.
    pub(crate) fn remove_joints_of(&mut self, body: BodyHandle) {
        for handle in self.joints_attached_to(body) {
            let Some(joint) = self.joints.remove(handle) else {
                continue;
            };
            self.unlink(handle, &joint);
            for other in joint.bodies.into_iter().filter(|&h| h != body) {
                if let Some(state) = self.bodies.get_mut(other) {
                    state.sleep.wake();
                    self.active.note(other);
                }
            }
        }
    }
}

/// The measures of [`JointReading`] from the joint's bodies as they are.
fn reading(joint: &Joint, a: &RigidBody, b: &RigidBody) -> JointReading {
    let frame_a = a.pose * joint.frames[0];
    let frame_b = b.pose * joint.frames[1];
    let (pa, pb) = (frame_a.translation.vector, frame_b.translation.vector);
    let axis = frame_a.rotation * Vector3::z();
    let relative = super::math::relative(&frame_a.rotation, &frame_b.rotation);
    let angle = super::math::twist_angle(&relative);
    let swing = super::math::swing_angle(&axis, &(frame_b.rotation * Vector3::z()));
    // Velocities of the anchors: the bodies' linear velocities are their centres of mass'.
    let point_velocity = |body: &RigidBody, p: &Vector3| {
        let center = body.pose * body.mass_properties.local_center;
        body.linvel + body.angvel.cross(&(p - center.coords))
    };
    let d = pb - pa;
    let relative_velocity = point_velocity(b, &pb) - point_velocity(a, &pa);
    JointReading {
        angle,
        angular_speed: (b.angvel - a.angvel).dot(&axis),
        swing,
        translation: d.dot(&axis),
        speed: relative_velocity.dot(&axis) + d.dot(&a.angvel.cross(&axis)),
        length: d.norm(),
        anchors: [pa.into(), pb.into()],
        force: joint.force,
        torque: joint.torque,
    }
}
