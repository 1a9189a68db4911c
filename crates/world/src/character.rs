//! A kinematic character controller: a body (a capsule, usually) moved by cast and slide, as
//! Box3D's mover and rapier's `KinematicCharacterController` move theirs.
//!
//! [`CharacterController::move_character`] takes the translation the game wants this frame
//! (input times speed, plus gravity's fall) and finds the one the character can make:
//! 1. carried by the body it stands on: the ground's motion since the last move (a platform
//!    driven by targets, a turning disc) moves the point the character stands on;
//! 2. pushed out of anything that moved into it (the exact contact's minimum translation);
//! 3. cast and slide: the shape is cast along what is left of the move
//!    ([`World::cast_shape`], the character's own body excluded, sensors skipped), stopped
//!    `skin` short of what it hits, and the rest projected onto the surface hit; a surface
//!    steeper than `max_slope` is a wall: what the projection would add upward is dropped, so
//!    the character slides along it and down it, never up;
//! 4. a step: blocked by a wall while walking, it tries the same move lifted by
//!    `step_height`, and keeps it when it comes down on walkable ground further along;
//! 5. the ground: a cast down by `snap_distance` finds what it stands on; walking (not
//!    rising), it snaps down to it, so that it follows slopes and steps down;
//! 6. dynamic bodies it runs into are pushed: an impulse of `push_mass` times the speed it
//!    moved into them, at the point hit.
//!
//! The result is given to the body as its target pose ([`RigidBody::set_target_pose`]): the
//! next step moves it there, and pushes what it moves into as any kinematic body does. The
//! controller keeps what it stands on between moves (its own state, outside the world: save
//! it beside the world's snapshot if the game needs to).

use crate::body::{BodyHandle, BodyKind, RigidBody};
use crate::error::WorldError;
use crate::limits::{self, Range, within};
use crate::query::QueryFilter;
use crate::world::World;
use collide::volume_contact;
use geom::{Isometry3, Point3, Real, Shape, Vector3};
use serde::{Deserialize, Serialize};

/// How a character moves; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CharacterConfig {
    /// Which way is up (unit).
    pub up: Vector3,
    /// The steepest walkable slope (radians): steeper surfaces are walls.
    pub max_slope: Real,
    /// The highest step climbed (metres).
    pub step_height: Real,
    /// The gap kept between the character and what it touches (metres).
    pub skin: Real,
    /// How far below it the ground is looked for, and snapped down to while walking (metres).
    pub snap_distance: Real,
    /// The mass (kg) with which it pushes dynamic bodies: an impulse of this times the speed
    /// it moved into them. 0 pushes nothing (the step still does, kinematically).
    pub push_mass: Real,
    /// At most this many slides per move.
    pub max_slides: u32,
    /// How much room a step's top must have ahead for the character to step onto it (metres).
    pub min_step_width: Real,
}

impl Default for CharacterConfig {
    /// Up +y, 45 degree slopes, 0.35 m steps with 0.2 m of room on top, a 1 cm skin, ground
    /// snapped from 0.35 m, a push of 80 kg, 5 slides.
    fn default() -> Self {
        Self {
            up: Vector3::y(),
            max_slope: std::f32::consts::FRAC_PI_4,
            step_height: 0.35,
            skin: 0.01,
            snap_distance: 0.35,
            push_mass: 80.0,
            max_slides: 5,
            min_step_width: 0.2,
        }
    }
}

impl CharacterConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), WorldError> {
        geom::validate::finite_vector3("character.up", &self.up)?;
        within(
            "character.up (its length)",
            self.up.norm(),
            Range::Between(0.999, 1.001, ""),
        )?;
        within(
            "character.max_slope",
            self.max_slope,
            Range::Between(0.0, std::f32::consts::FRAC_PI_2, "rad"),
        )?;
        within(
            "character.step_height",
            self.step_height,
            Range::Between(0.0, limits::MAX_SIZE, "m"),
        )?;
        within("character.skin", self.skin, Range::Between(1e-4, 1.0, "m"))?;
        within(
            "character.snap_distance",
            self.snap_distance,
            Range::Between(0.0, limits::MAX_SIZE, "m"),
        )?;
        within(
            "character.push_mass",
            self.push_mass,
            Range::Between(0.0, limits::MAX_MASS, "kg"),
        )?;
        within(
            "character.min_step_width",
            self.min_step_width,
            Range::Between(0.0, limits::MAX_SIZE, "m"),
        )?;
        within(
            "character.max_slides",
            self.max_slides as Real,
            Range::Between(1.0, 64.0, ""),
        )?;
        Ok(())
    }
}

/// What a move did.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterMove {
    /// The character's pose after the move (its target for the next step).
    pub pose: Isometry3,
    /// How far it moved (the carry by the ground included).
    pub translation: Vector3,
    /// Whether it stands on walkable ground.
    pub grounded: bool,
    /// What it stands on, and the ground's normal there.
    pub ground: Option<(BodyHandle, Vector3)>,
    /// The bodies it ran into, each with the normal of the surface hit (toward the character).
    pub hits: Vec<(BodyHandle, Vector3)>,
}

/// A character controller: its settings and what it stood on at its last move.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CharacterController {
    /// How it moves.
    pub config: CharacterConfig,
    /// The body it stood on at its last move, with that body's pose then (the next move
    /// carries the character by that body's motion since).
    ground: Option<(BodyHandle, Isometry3)>,
}

/// One cast-and-slide segment's result.
struct Slid {
    position: Vector3,
    /// Whether a wall (a surface too steep to walk) stopped part of the move.
    walled: bool,
}

impl CharacterController {
    /// A controller with these settings, standing on nothing yet. The error names a bad
    /// setting.
    pub fn new(config: CharacterConfig) -> Result<Self, WorldError> {
        config.validate()?;
        Ok(Self {
            config,
            ground: None,
        })
    }

    /// Moves the kinematic body `character` by `desired` (world space, metres: this frame's
    /// walk plus its fall) as far as the world lets it; see the module documentation. The
    /// body's target pose is set to the result (the next step moves it there); it keeps its
    /// rotation. The error names an unknown handle, a body that is not kinematic, or a
    /// desired move that is not finite or too long; then nothing changes.
    pub fn move_character(
        &mut self,
        world: &mut World,
        character: BodyHandle,
        desired: Vector3,
    ) -> Result<CharacterMove, WorldError> {
        geom::validate::finite_vector3("desired", &desired)?;
        within(
            "desired (its length)",
            desired.norm(),
            Range::Between(0.0, limits::MAX_SIZE, "m"),
        )?;
        let body = world.body(character).ok_or(WorldError::UnknownBody)?;
        if body.kind() != BodyKind::Kinematic {
            return Err(WorldError::NotKinematic {
                field: "character".into(),
            });
        }
        // Where the step will put it, if it was given a target and not yet stepped.
        let start = body.control().target.unwrap_or(*body.pose());
        let shape = body.collider().shape.clone();
        let offset = body.collider().offset;
        let filter = QueryFilter::default()
            .excluding(character)
            .without_sensors();
        let mover = Mover {
            world: &*world,
            shape: &shape,
            offset,
            rotation: start.rotation,
            filter: &filter,
            config: &self.config,
        };
        let up = self.config.up;
        let mut position = start.translation.vector;
        // 1. Carried by the ground.
        if let Some((ground, then)) = self.ground
            && let Some(now) = world_pose(mover.world, ground)
        {
            let feet: Point3 = position.into();
            let carried = now * then.inverse_transform_point(&feet);
            position = mover.slide(position, carried - feet, false).position;
        }
        // 2. Out of anything that moved into it.
        position = mover.depenetrate(position);
        // 3. and 4. Walk, stepping up where a wall stops it; then fall or rise.
        let vertical = up * desired.dot(&up);
        let walk = desired - vertical;
        let mut hits = Vec::new();
        let mut stepped = false;
        if walk.norm() > 0.0 {
            let from = position;
            let flat = mover.slide_recording(position, walk, true, &mut hits);
            position = flat.position;
            if flat.walled
                && self.config.step_height > 0.0
                && let Some(up_there) = mover.step_up(from, walk)
            {
                let progress = |p: Vector3| (p - from).dot(&walk);
                if progress(up_there) > progress(position) + self.config.skin * walk.norm() {
                    position = up_there;
                    stepped = true;
                }
            }
        }
        if vertical.norm() > 0.0 {
            position = mover
                .slide_recording(position, vertical, false, &mut hits)
                .position;
        }
        // 5. The ground.
        let rising = desired.dot(&up) > 0.0;
        let mut ground = mover.ground(position);
        if let Some((_, _, gap)) = ground
            && !rising
            && gap > self.config.skin
            && self.ground.is_some()
        {
            position -= up * (gap - self.config.skin);
            ground = mover.ground(position);
        }
        let pose = Isometry3::from_parts(position.into(), start.rotation);
        // The target first (checked), then the pushes: an error leaves the world unchanged.
        world
            .body_mut(character)
            .ok_or(WorldError::UnknownBody)?
            .set_target_pose(pose)?;
        // 6. Push what it ran into (an impulse too large for a body is skipped).
        let dt = world.config().dt;
        if self.config.push_mass > 0.0 {
            for &(hit, normal, point, into) in &hits {
                if let Some(body) = world.body_mut(hit)
                    && body.kind() == BodyKind::Dynamic
                {
                    let impulse = -normal * (self.config.push_mass * into / dt);
                    let _ = body.apply_impulse_at_point(impulse, point);
                }
            }
        }
        self.ground = match ground {
            Some((handle, _, _)) => world_pose(world, handle).map(|p| (handle, p)),
            None => None,
        };
        let mut seen: Vec<(BodyHandle, Vector3)> = Vec::new();
        for (handle, normal, _, _) in hits {
            if !seen.iter().any(|(h, _)| *h == handle) {
                seen.push((handle, normal));
            }
        }
        Ok(CharacterMove {
            pose,
            translation: position - start.translation.vector,
            // On a step's edge, stepping up: standing, though the edge is not walkable.
            grounded: ground.is_some() || stepped,
            ground: ground.map(|(handle, normal, _)| (handle, normal)),
            hits: seen,
        })
    }
}

fn world_pose(world: &World, handle: BodyHandle) -> Option<Isometry3> {
    world.body(handle).map(RigidBody::pose).copied()
}

/// The world and the character's shape, for one move.
struct Mover<'a> {
    world: &'a World,
    shape: &'a Shape,
    offset: Isometry3,
    rotation: geom::UnitQuaternion,
    filter: &'a QueryFilter,
    config: &'a CharacterConfig,
}

impl Mover<'_> {
    /// The collider's pose with the body's origin at `position`.
    fn collider_pose(&self, position: Vector3) -> Isometry3 {
        Isometry3::from_parts(position.into(), self.rotation) * self.offset
    }

    /// Whether a surface of this normal can be walked on.
    fn walkable(&self, normal: &Vector3) -> bool {
        normal.dot(&self.config.up) >= self.config.max_slope.cos() - 1e-5
    }

    fn slide(&self, position: Vector3, motion: Vector3, walking: bool) -> Slid {
        self.slide_recording(position, motion, walking, &mut Vec::new())
    }

    /// Cast and slide from `position` along `motion`, the bodies hit recorded with their
    /// normal, the point hit and how far the move went into them.
    fn slide_recording(
        &self,
        mut position: Vector3,
        motion: Vector3,
        walking: bool,
        hits: &mut Vec<(BodyHandle, Vector3, Point3, Real)>,
    ) -> Slid {
        let skin = self.config.skin;
        let up = self.config.up;
        let mut remaining = motion;
        let mut walled = false;
        for _ in 0..self.config.max_slides {
            let length = remaining.norm();
            if length <= 1e-6 {
                break;
            }
            let pose = self.collider_pose(position);
            let hit = self
                .world
                .cast_shape(self.shape, &pose, remaining, self.filter)
                .ok()
                .flatten();
            let Some((body, hit)) = hit else {
                position += remaining;
                break;
            };
            // Stop `skin` short along the motion (never back past the start).
            let travel = (hit.fraction * length - skin).max(0.0);
            position += remaining * (travel / length);
            let left = remaining * (1.0 - travel / length);
            let normal = hit.normal;
            let into = -left.dot(&normal);
            hits.push((body, normal, hit.point, into.max(0.0)));
            // The part of what is left along the surface.
            let mut along = left + normal * into.max(0.0);
            if !self.walkable(&normal) {
                walled = walled || walking;
                // A wall is slid along and down, never up.
                let rise = along.dot(&up);
                if rise > 0.0 {
                    along -= up * rise;
                }
            } else if walking {
                // Walking up a walkable slope keeps the walking speed along it.
                let flat = left - up * left.dot(&up);
                if along.norm() > 0.0 && flat.norm() > 0.0 {
                    along *= flat.norm() / along.norm();
                }
            }
            remaining = along;
        }
        Slid { position, walled }
    }

    /// The move `walk` from `start` lifted by the step height: up, across, and down onto
    /// what is under it. Taken only when, up there, the way ahead is clear for
    /// `min_step_width` and comes down on walkable ground above the start (a step's top, not
    /// the floor it rose from); `None` otherwise.
    fn step_up(&self, start: Vector3, walk: Vector3) -> Option<Vector3> {
        let up = self.config.up;
        let skin = self.config.skin;
        let lift = self
            .slide(start, up * self.config.step_height, false)
            .position;
        let lifted = (lift - start).dot(&up);
        if lifted <= skin {
            return None;
        }
        let direction = walk.try_normalize(Real::MIN_POSITIVE)?;
        let width = walk.norm().max(self.config.min_step_width);
        let ahead = self.slide(lift, direction * width, true).position;
        if (ahead - lift).dot(&direction) < width - skin {
            return None;
        }
        let (landing, normal) = self.drop(ahead, lifted + skin)?;
        if !self.walkable(&normal) || (landing - start).dot(&up) <= skin {
            return None;
        }
        let across = self.slide(lift, walk, true).position;
        Some(self.drop(across, lifted + skin).map_or(across, |(p, _)| p))
    }

    /// Down from `position` by at most `distance` onto what is under it (stopping `skin`
    /// short), and the normal there; `None` when nothing is.
    fn drop(&self, position: Vector3, distance: Real) -> Option<(Vector3, Vector3)> {
        let up = self.config.up;
        let pose = self.collider_pose(position);
        let (_, hit) = self
            .world
            .cast_shape(self.shape, &pose, -up * distance, self.filter)
            .ok()
            .flatten()?;
        let fall = (hit.fraction * distance - self.config.skin).max(0.0);
        Some((position - up * fall, hit.normal))
    }

    /// What the character stands on: the body below within the snap distance, with a
    /// walkable normal, and the gap to it.
    fn ground(&self, position: Vector3) -> Option<(BodyHandle, Vector3, Real)> {
        let up = self.config.up;
        let reach = self.config.snap_distance + 2.0 * self.config.skin;
        let pose = self.collider_pose(position);
        let (body, hit) = self
            .world
            .cast_shape(self.shape, &pose, -up * reach, self.filter)
            .ok()
            .flatten()?;
        self.walkable(&hit.normal)
            .then_some((body, hit.normal, hit.fraction * reach))
    }

    /// Out of what overlaps the character: its exact contacts' minimum translations, a few
    /// rounds, plus the skin.
    fn depenetrate(&self, mut position: Vector3) -> Vector3 {
        for _ in 0..4 {
            let pose = self.collider_pose(position);
            let Ok(touching) = self.world.overlap_shape(self.shape, &pose, self.filter) else {
                break;
            };
            let volume = self.shape.world(&pose);
            let mut push = Vector3::zeros();
            for handle in touching {
                let Some(body) = self.world.body(handle) else {
                    continue;
                };
                let other = body.world_volume();
                // The normal points from the character toward the other body.
                if let Some(contact) = volume_contact(&volume, &other) {
                    push -= contact.normal * (contact.depth + self.config.skin);
                }
            }
            if push == Vector3::zeros() {
                break;
            }
            position += push;
        }
        position
    }
}
