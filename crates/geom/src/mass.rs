//! Mass properties of shapes: the moments of a uniform solid (mass, centre of mass, inertia
//! tensor). Geometry, not dynamics: what a body does with them is the world's business.
//!
//! Frames: a [`MassProperties`] is expressed in one frame, which each function names; the inertia
//! tensor is always about the centre of mass, along that frame's axes. Units: kilograms, metres,
//! kg m^2.

use crate::{Isometry3, Matrix3, Point3, Real, Shape, Vector3};

/// Mass, centre of mass and inertia tensor of a solid, in some frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// Kilograms, `> 0`.
    pub mass: Real,
    /// The centre of mass (metres).
    pub center: Point3,
    /// The inertia tensor about `center`, along the frame's axes (kg m^2); symmetric, positive
    /// definite.
    pub inertia: Matrix3,
}

impl MassProperties {
    /// The properties seen from the frame in which `pose` places this one: the centre moved by
    /// `pose`, the tensor turned (`R I R^T`). Mass is unchanged.
    pub fn transformed(&self, pose: &Isometry3) -> Self {
        let r = pose.rotation.to_rotation_matrix();
        let r = r.matrix();
        Self {
            mass: self.mass,
            center: pose * self.center,
            inertia: r * self.inertia * r.transpose(),
        }
    }

    /// The same solid with its mass set to `mass`: the tensor scales with it (uniform density).
    pub fn with_mass(&self, mass: Real) -> Self {
        let scale = mass / self.mass;
        Self {
            mass,
            center: self.center,
            inertia: self.inertia * scale,
        }
    }

    /// The inertia tensor about `point` instead of the centre of mass (the parallel-axis
    /// theorem, Steiner): `I + m (|d|^2 E - d d^T)` with `d = center - point`.
    pub fn inertia_about(&self, point: &Point3) -> Matrix3 {
        let d = self.center - point;
        self.inertia + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * self.mass
    }

    /// The principal frame of the tensor: a rotation `R` and moments `m` with
    /// `inertia = R diag(m) R^T` (a symmetric eigendecomposition in f64; `R` right-handed).
    pub fn principal(&self) -> (crate::UnitQuaternion, Vector3) {
        let eigen = nalgebra::SymmetricEigen::new(self.inertia.cast::<f64>());
        let mut axes = eigen.eigenvectors;
        if axes.determinant() < 0.0 {
            axes.column_mut(2).neg_mut();
        }
        let rotation = nalgebra::Rotation3::from_matrix_unchecked(axes.cast::<Real>());
        (
            crate::UnitQuaternion::from_rotation_matrix(&rotation),
            eigen.eigenvalues.cast::<Real>(),
        )
    }

    /// Two solids taken as one: the masses add, the centre is the mass-weighted mean, and each
    /// tensor is shifted to the common centre by the parallel-axis theorem before they add.
    pub fn combined(&self, other: &Self) -> Self {
        let mass = self.mass + other.mass;
        let center = Point3::from(
            (self.center.coords * self.mass + other.center.coords * other.mass) / mass,
        );
        Self {
            mass,
            center,
            inertia: self.inertia_about(&center) + other.inertia_about(&center),
        }
    }
}

impl Shape {
    /// The mass properties of the shape as a uniform solid of `density` (kg/m^3), in the shape's
    /// own frame: the centre of mass at its origin and the tensor diagonal, but for a hull
    /// (its centroid, its full tensor: [`crate::ConvexHull::mass_properties`]) and a compound
    /// (its parts at their own densities, `density` unused: [`crate::Compound::mass_properties`]).
    ///
    /// Box of half extents `(x, y, z)`: `m = 8 xyz rho`, `I = m/3 diag(y^2 + z^2, x^2 + z^2,
    /// x^2 + y^2)`. Ball of radius `r`: `m = 4/3 pi r^3 rho`, `I = 2/5 m r^2` on each axis.
    /// Capsule of half height `h` and radius `r`, as a cylinder of mass `m_c = 2 pi r^2 h rho`
    /// and two hemispheres of mass `m_s = 4/3 pi r^3 rho` in all: about its axis (y)
    /// `m_c r^2 / 2 + 2/5 m_s r^2`; across it `m_c (r^2 / 4 + h^2 / 3) + m_s (2/5 r^2 + h^2 +
    /// 3/4 h r)` (each hemisphere's own moment `83/320 (m_s / 2) r^2` about its centre of mass,
    /// `3/8 r` from its flat face, moved out to `h + 3/8 r` by the parallel-axis theorem).
    /// A surface (mesh, heightfield) has no volume: zero mass and inertia.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        let mass = density * self.volume();
        let diagonal = match self {
            Self::Cuboid { half_extents: h } => {
                let sq = h.component_mul(h);
                Vector3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 3.0)
            }
            Self::Ball { radius } => Vector3::repeat(0.4 * mass * radius * radius),
            Self::Capsule {
                half_height: h,
                radius: r,
            } => {
                let pi = std::f32::consts::PI;
                let m_c = density * 2.0 * pi * r * r * h;
                let m_s = density * 4.0 / 3.0 * pi * r * r * r;
                let across =
                    m_c * (r * r / 4.0 + h * h / 3.0) + m_s * (0.4 * r * r + h * h + 0.75 * h * r);
                let along = 0.5 * m_c * r * r + 0.4 * m_s * r * r;
                Vector3::new(across, along, across)
            }
            Self::ConvexHull { hull } => return hull.mass_properties(density),
            // Its parts carry their own densities.
            Self::Compound { compound } => return compound.mass_properties(),
            Self::TriMesh { .. } | Self::HeightField { .. } => Vector3::zeros(),
        };
        MassProperties {
            mass,
            center: Point3::origin(),
            inertia: Matrix3::from_diagonal(&diagonal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UnitQuaternion;

    fn close(a: &Matrix3, b: &Matrix3, tolerance: Real) -> bool {
        (a - b).abs().max() <= tolerance
    }

    #[test]
    fn box_and_ball_match_the_textbook() {
        let cube = Shape::Cuboid {
            half_extents: Vector3::new(1.0, 2.0, 3.0),
        };
        let props = cube.mass_properties(2.0);
        assert_eq!(props.mass, 96.0);
        assert_eq!(props.center, Point3::origin());
        let expected = Matrix3::from_diagonal(&Vector3::new(13.0, 10.0, 5.0)) * 32.0;
        assert!(close(&props.inertia, &expected, 1e-3), "{}", props.inertia);
        let ball = Shape::Ball { radius: 2.0 }.mass_properties(3.0);
        let mass = 4.0 / 3.0 * std::f32::consts::PI * 8.0 * 3.0;
        assert!((ball.mass - mass).abs() < 1e-4);
        assert!((ball.inertia[(1, 1)] - 0.4 * mass * 4.0).abs() < 1e-3);
    }

    #[test]
    fn turned_and_shifted_box() {
        // A 2 x 4 x 6 box turned a quarter about z swaps its x and y moments.
        let props = Shape::Cuboid {
            half_extents: Vector3::new(1.0, 2.0, 3.0),
        }
        .mass_properties(1.0);
        let turn = Isometry3::from_parts(
            Vector3::new(0.0, 0.0, 5.0).into(),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_2),
        );
        let turned = props.transformed(&turn);
        assert!((turned.center - Point3::new(0.0, 0.0, 5.0)).norm() < 1e-6);
        let d = props.inertia.diagonal();
        let expected = Matrix3::from_diagonal(&Vector3::new(d.y, d.x, d.z));
        assert!(
            close(&turned.inertia, &expected, 1e-3),
            "{}",
            turned.inertia
        );
        // Parallel axis: about the origin, 5 m below the centre along z, x and y gain m 25.
        let about_origin = turned.inertia_about(&Point3::origin());
        let shift = Matrix3::from_diagonal(&Vector3::new(25.0, 25.0, 0.0)) * props.mass;
        assert!(close(&about_origin, &(expected + shift), 1e-2));
    }

    #[test]
    fn two_halves_make_the_whole() {
        // Two 1 x 2 x 2 boxes side by side along x are one 2 x 2 x 2 cube.
        let half = Shape::Cuboid {
            half_extents: Vector3::new(0.5, 1.0, 1.0),
        }
        .mass_properties(1.0);
        let at = |x: Real| Isometry3::translation(x, 0.0, 0.0);
        let whole = half
            .transformed(&at(-0.5))
            .combined(&half.transformed(&at(0.5)));
        let cube = Shape::Cuboid {
            half_extents: Vector3::repeat(1.0),
        }
        .mass_properties(1.0);
        assert_eq!(whole.mass, cube.mass);
        assert!((whole.center - cube.center).norm() < 1e-6);
        assert!(
            close(&whole.inertia, &cube.inertia, 1e-4),
            "{}",
            whole.inertia
        );
        // Scaling the mass scales the tensor.
        let heavy = cube.with_mass(80.0);
        assert!(close(&heavy.inertia, &(cube.inertia * 10.0), 1e-4));
    }

    #[test]
    fn a_capsule_is_its_discs_summed() {
        // The capsule cut into thin discs along y (Simpson's rule, f64): a disc of radius s at
        // height y has area pi s^2, moment pi s^4 / 2 about y and pi s^2 (s^2 / 4 + y^2) across.
        let (h, r, density) = (0.7f64, 0.3f64, 250.0f64);
        let radius_at = |y: f64| {
            let beyond = (y.abs() - h).max(0.0);
            (r * r - beyond * beyond).max(0.0).sqrt()
        };
        let n = 20_000;
        let (lo, step) = (-(h + r), 2.0 * (h + r) / n as f64);
        let (mut mass, mut along, mut across) = (0.0, 0.0, 0.0);
        for i in 0..=n {
            let weight = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let y = lo + step * i as f64;
            let s2 = radius_at(y).powi(2);
            let pi = std::f64::consts::PI;
            mass += weight * pi * s2;
            along += weight * pi * s2 * s2 / 2.0;
            across += weight * pi * s2 * (s2 / 4.0 + y * y);
        }
        let scale = density * step / 3.0;
        let capsule = Shape::capsule(h as Real, r as Real)
            .unwrap()
            .mass_properties(density as Real);
        let rel = |got: Real, want: f64| (f64::from(got) - want).abs() / want;
        assert!(rel(capsule.mass, mass * scale) < 1e-5, "{}", capsule.mass);
        assert!(rel(capsule.inertia[(1, 1)], along * scale) < 1e-5);
        assert!(rel(capsule.inertia[(0, 0)], across * scale) < 1e-5);
        assert_eq!(capsule.inertia[(0, 0)], capsule.inertia[(2, 2)]);
        assert_eq!(capsule.center, Point3::origin());
    }

    #[test]
    fn the_principal_frame_rebuilds_the_tensor() {
        let props = Shape::cuboid(Vector3::new(1.0, 2.0, 3.0))
            .unwrap()
            .mass_properties(1.0)
            .transformed(&Isometry3::rotation(Vector3::new(0.3, -0.7, 0.2)));
        let (rotation, moments) = props.principal();
        let r = rotation.to_rotation_matrix();
        let rebuilt = r.matrix() * Matrix3::from_diagonal(&moments) * r.matrix().transpose();
        assert!(close(&rebuilt, &props.inertia, 1e-3), "{rebuilt}");
    }
}
