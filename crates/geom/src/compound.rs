//! Compounds: several solid shapes placed in one frame, each with its own density, taken as
//! one rigid shape (a table of five boxes, a dumbbell of two balls and a capsule). What a body
//! of several colliders collides as: its mass properties are the parts' summed (parallel
//! axis), its box theirs merged, and the narrow phase meets each part.

use crate::{Aabb, GeomError, Isometry3, MassProperties, Real, Shape, validate};
use serde::{Deserialize, Serialize};

/// The most parts a compound has.
pub const MAX_PARTS: usize = 256;

/// One part of a compound: a solid shape (a box, a ball, a capsule or a hull) at `offset` in
/// the compound's frame, of `density` (kg/m^3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// The shape, in the part's frame.
    pub shape: Shape,
    /// The part's frame in the compound's.
    pub offset: Isometry3,
    /// Kilograms per cubic metre, positive.
    pub density: Real,
}

impl Part {
    /// A part of `shape` at `offset`, of density 1 kg/m^3 (a body's default).
    pub fn new(shape: Shape, offset: Isometry3) -> Self {
        Self {
            shape,
            offset,
            density: 1.0,
        }
    }

    /// The same part of `density`.
    pub fn with_density(mut self, density: Real) -> Self {
        self.density = density;
        self
    }
}

/// Solid shapes as one, in the compound's frame. Built checked ([`Compound::new`]); shared
/// through an `Arc` by the bodies that use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Compound {
    parts: Vec<Part>,
    /// Each part's box in the compound's frame.
    part_aabbs: Vec<Aabb>,
    /// The same boxes as columns, for [`Compound::parts_meeting`].
    columns: BoxColumns,
    aabb: Aabb,
    mass: MassProperties,
}

/// How many parts' boxes [`Compound::parts_meeting`] compares at a time.
const BOX_LANES: usize = 8;

/// Boxes as columns of [`BOX_LANES`]: each corner coordinate of every box, the last block
/// filled with NaN, which meets nothing.
#[derive(Debug, Clone, PartialEq)]
struct BoxColumns {
    mins: [Vec<[Real; BOX_LANES]>; 3],
    maxs: [Vec<[Real; BOX_LANES]>; 3],
}

impl BoxColumns {
    fn of(boxes: &[Aabb]) -> Self {
        let column = |corner: fn(&Aabb) -> &crate::Point3, axis: usize| {
            (boxes.chunks(BOX_LANES))
                .map(|chunk| {
                    let mut block = [Real::NAN; BOX_LANES];
                    for (slot, b) in block.iter_mut().zip(chunk) {
                        *slot = corner(b)[axis];
                    }
                    block
                })
                .collect()
        };
        Self {
            mins: [0, 1, 2].map(|axis| column(|b| &b.mins, axis)),
            maxs: [0, 1, 2].map(|axis| column(|b| &b.maxs, axis)),
        }
    }
}

/// A set of a compound's parts, iterated in the parts' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartSet([u64; MAX_PARTS / 64]);

impl Iterator for PartSet {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        for (w, word) in self.0.iter_mut().enumerate() {
            if *word != 0 {
                let bit = word.trailing_zeros() as usize;
                *word &= *word - 1;
                return Some(w * 64 + bit);
            }
        }
        None
    }
}

impl Compound {
    /// The compound of `parts`: at least one and at most [`MAX_PARTS`], each a box, a ball, a
    /// capsule or a hull (checked as [`Shape::validate`] checks it) at a finite offset, of a
    /// finite positive density. Errors name the part and the field.
    pub fn new(parts: Vec<Part>) -> Result<Self, GeomError> {
        if parts.is_empty() {
            return Err(GeomError::TooFew {
                field: "parts".into(),
                needed: 1,
                got: 0,
            });
        }
        if parts.len() > MAX_PARTS {
            return Err(GeomError::TooMany {
                field: "parts".into(),
                most: MAX_PARTS,
                got: parts.len(),
            });
        }
        let mut checked = Vec::with_capacity(parts.len());
        for (i, part) in parts.into_iter().enumerate() {
            let shape = match part.shape {
                Shape::Cuboid { .. }
                | Shape::Ball { .. }
                | Shape::Capsule { .. }
                | Shape::ConvexHull { .. } => part.shape.validate().map_err(|e| prefixed(i, e))?,
                Shape::TriMesh { .. } | Shape::HeightField { .. } | Shape::Compound { .. } => {
                    return Err(GeomError::Degenerate {
                        field: format!("parts[{i}].shape"),
                        why: "a compound's parts are boxes, balls, capsules or hulls",
                    });
                }
            };
            let offset = validate::isometry(&format!("parts[{i}].offset"), &part.offset)?;
            let density = validate::positive(&format!("parts[{i}].density"), part.density)?;
            checked.push(Part {
                shape,
                offset,
                density,
            });
        }
        let part_aabbs: Vec<Aabb> = checked.iter().map(|p| p.shape.aabb(&p.offset)).collect();
        let aabb = part_aabbs
            .iter()
            .copied()
            .reduce(|a, b| a.merged(&b))
            .expect("at least one part");
        let mass = checked
            .iter()
            .map(|p| p.shape.mass_properties(p.density).transformed(&p.offset))
            .reduce(|a, b| a.combined(&b))
            .expect("at least one part");
        Ok(Self {
            parts: checked,
            columns: BoxColumns::of(&part_aabbs),
            part_aabbs,
            aabb,
            mass,
        })
    }

    /// The parts, in the order given.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Each part's box in the compound's frame, in the parts' order.
    pub fn part_aabbs(&self) -> &[Aabb] {
        &self.part_aabbs
    }

    /// The parts whose boxes (in the compound's frame) meet `other` (touching counts, as
    /// [`Aabb::intersects`] says), in the parts' order. The boxes are compared eight at a
    /// time, as columns: a drum of 40 parts meets every body in it, every step.
    #[inline]
    pub fn parts_meeting(&self, other: &Aabb) -> PartSet {
        let mut set = PartSet([0; MAX_PARTS / 64]);
        let c = &self.columns;
        for (block, ((lo_x, lo_y), (lo_z, (hi_x, (hi_y, hi_z))))) in (c.mins[0].iter())
            .zip(&c.mins[1])
            .zip(
                c.mins[2]
                    .iter()
                    .zip(c.maxs[0].iter().zip(c.maxs[1].iter().zip(&c.maxs[2]))),
            )
            .enumerate()
        {
            let mut bits = 0u64;
            for lane in 0..BOX_LANES {
                let meet = (lo_x[lane] <= other.maxs.x)
                    & (other.mins.x <= hi_x[lane])
                    & (lo_y[lane] <= other.maxs.y)
                    & (other.mins.y <= hi_y[lane])
                    & (lo_z[lane] <= other.maxs.z)
                    & (other.mins.z <= hi_z[lane]);
                bits |= u64::from(meet) << lane;
            }
            let first = block * BOX_LANES;
            set.0[first / 64] |= bits << (first % 64);
        }
        set
    }

    /// Its box in its own frame: the parts' boxes merged.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// The parts' mass properties summed, at their own densities: the mass their sum, the
    /// centre of mass their weighted mean, the tensors moved there (parallel axis) and added.
    pub fn mass_properties(&self) -> MassProperties {
        self.mass
    }

    /// The parts' volumes summed (cubic metres; overlaps counted twice).
    pub fn volume(&self) -> Real {
        self.parts.iter().map(|p| p.shape.volume()).sum()
    }

    /// A digest of its numbers (FNV-1a over their bits, with each hull's digest).
    pub fn digest(&self) -> u64 {
        let mut words: Vec<u32> = Vec::new();
        for part in &self.parts {
            match &part.shape {
                Shape::Cuboid { half_extents } => {
                    words.push(0);
                    words.extend(half_extents.iter().map(|x| x.to_bits()));
                }
                Shape::Ball { radius } => words.extend([1, radius.to_bits()]),
                Shape::Capsule {
                    half_height,
                    radius,
                } => words.extend([4, half_height.to_bits(), radius.to_bits()]),
                Shape::ConvexHull { hull } => {
                    let d = hull.digest();
                    words.extend([5, d as u32, (d >> 32) as u32]);
                }
                Shape::TriMesh { .. } | Shape::HeightField { .. } | Shape::Compound { .. } => {}
            }
            words.extend(part.offset.translation.vector.iter().map(|x| x.to_bits()));
            words.extend(part.offset.rotation.coords.iter().map(|x| x.to_bits()));
            words.push(part.density.to_bits());
        }
        words.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, w| {
            (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
}

/// `e` with its field named inside part `i`.
fn prefixed(i: usize, e: GeomError) -> GeomError {
    let name = |field: String| format!("parts[{i}].shape.{field}");
    match e {
        GeomError::NonFinite { field, value } => GeomError::NonFinite {
            field: name(field),
            value,
        },
        GeomError::NonPositive { field, value } => GeomError::NonPositive {
            field: name(field),
            value,
        },
        other => other,
    }
}

/// A compound saved as its parts and read back through [`Compound::new`], which checks them
/// (for `#[serde(with = ...)]`).
pub mod as_parts {
    use super::{Compound, Part};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    /// Writes the parts.
    pub fn serialize<S: Serializer>(compound: &Arc<Compound>, s: S) -> Result<S::Ok, S::Error> {
        compound.parts().serialize(s)
    }

    /// Reads parts and builds their compound; an error names what was wrong with them.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Compound>, D::Error> {
        let parts = Vec::<Part>::deserialize(d)?;
        Compound::new(parts)
            .map(Arc::new)
            .map_err(|e| serde::de::Error::custom(format!("compound: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Matrix3, Point3, Vector3};

    #[test]
    fn the_parts_meeting_a_box_are_those_whose_boxes_intersect_it_in_order() {
        // Compounds of 1, 7, 8, 9, 40 and 256 balls (blocks of eight, full and partial), boxes
        // from inside to well clear, touching ones, and boxes with NaN or infinite corners.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as Real / (1u64 << 24) as Real * 8.0 - 4.0
        };
        for count in [1, 7, 8, 9, 40, MAX_PARTS] {
            let parts: Vec<Part> = (0..count)
                .map(|_| {
                    let at = Isometry3::translation(next(), next(), next());
                    Part::new(Shape::ball(0.1 + 0.1 * next().abs()).unwrap(), at)
                })
                .collect();
            let compound = Compound::new(parts).unwrap();
            let mut probes: Vec<Aabb> = (0..300)
                .map(|_| {
                    let (a, b) = (
                        Vector3::new(next(), next(), next()),
                        Vector3::new(next(), next(), next()),
                    );
                    Aabb::new(a.inf(&b).into(), a.sup(&b).into())
                })
                .collect();
            // Touching: a part's own box moved to share a face.
            let first = compound.part_aabbs()[0];
            let shift = Vector3::new(first.maxs.x - first.mins.x, 0.0, 0.0);
            probes.push(Aabb::new(first.mins + shift, first.maxs + shift));
            for odd in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
                let mut b = probes[0];
                b.mins.y = odd;
                probes.push(b);
                // (Built as it is: `Aabb::new` debug-checks the order of its corners.)
                probes.push(Aabb {
                    mins: Point3::from(Vector3::repeat(-odd)),
                    maxs: Point3::from(Vector3::repeat(odd)),
                });
            }
            for probe in &probes {
                let expected: Vec<usize> = (0..count)
                    .filter(|&k| compound.part_aabbs()[k].intersects(probe))
                    .collect();
                let found: Vec<usize> = compound.parts_meeting(probe).collect();
                assert_eq!(found, expected, "{count} parts, {probe:?}");
            }
        }
    }

    #[test]
    fn a_table_of_five_boxes_sums_its_parts() {
        // A top (1 x 0.05 x 0.6 half extents) on four legs (0.05 x 0.4 x 0.05), oak.
        let top = Part::new(
            Shape::cuboid(Vector3::new(1.0, 0.05, 0.6)).unwrap(),
            Isometry3::translation(0.0, 0.85, 0.0),
        );
        let mut parts = vec![top.with_density(700.0)];
        for (x, z) in [(-0.9, -0.5), (0.9, -0.5), (-0.9, 0.5), (0.9, 0.5)] {
            parts.push(
                Part::new(
                    Shape::cuboid(Vector3::new(0.05, 0.4, 0.05)).unwrap(),
                    Isometry3::translation(x, 0.4, z),
                )
                .with_density(700.0),
            );
        }
        let table = Compound::new(parts).unwrap();
        let props = table.mass_properties();
        let (top_mass, leg_mass) = (700.0 * 8.0 * 0.05 * 0.6, 700.0 * 8.0 * 0.05 * 0.4 * 0.05);
        assert!((props.mass - (top_mass + 4.0 * leg_mass)).abs() < 1e-3);
        let y = (top_mass * 0.85 + 4.0 * leg_mass * 0.4) / (top_mass + 4.0 * leg_mass);
        assert!((props.center - Point3::new(0.0, y, 0.0)).norm() < 1e-5);
        // Symmetric: the tensor is diagonal.
        let off = props.inertia - Matrix3::from_diagonal(&props.inertia.diagonal());
        assert!(off.abs().max() < 1e-4 * props.inertia.max());
        let b = table.local_aabb();
        assert!(
            (b.mins - Point3::new(-1.0, 0.0, -0.6)).norm() < 1e-6,
            "{b:?}"
        );
        assert!((b.maxs - Point3::new(1.0, 0.9, 0.6)).norm() < 1e-6, "{b:?}");
    }

    #[test]
    fn bad_parts_are_refused_by_name() {
        let e = Compound::new(vec![]).unwrap_err().to_string();
        assert!(e.contains("parts needs at least 1"), "{e}");
        let ball = |r| Part::new(Shape::Ball { radius: r }, Isometry3::identity());
        let e = Compound::new(vec![ball(1.0), ball(-1.0)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("parts[1].shape.radius"), "{e}");
        let e = Compound::new(vec![ball(1.0).with_density(0.0)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("parts[0].density"), "{e}");
        let mut far = ball(1.0);
        far.offset.translation.vector.x = Real::NAN;
        let e = Compound::new(vec![far]).unwrap_err().to_string();
        assert!(e.contains("parts[0].offset"), "{e}");
        let nested = Shape::Compound {
            compound: std::sync::Arc::new(Compound::new(vec![ball(1.0)]).unwrap()),
        };
        let e = Compound::new(vec![Part::new(nested, Isometry3::identity())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("parts[0].shape"), "{e}");
    }
}
