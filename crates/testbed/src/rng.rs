//! A small seeded generator, the same on every platform.

use geom::{Point3, Real, UnitQuaternion, Vector3};

/// SplitMix64 (S. Vigna): seeded, so that every run of a scene, test or bench draws the same
/// numbers.
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 24 bits (every value exact in `f32`).
    pub fn unit(&mut self) -> Real {
        (self.next_u64() >> 40) as Real / (1u64 << 24) as Real
    }

    /// Uniform in [-1, 1).
    pub fn signed(&mut self) -> Real {
        2.0 * self.unit() - 1.0
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the cube of half side `half_side` about the origin.
    pub fn point(&mut self, half_side: Real) -> Point3 {
        Point3::new(
            self.range(-half_side, half_side),
            self.range(-half_side, half_side),
            self.range(-half_side, half_side),
        )
    }

    /// A uniformly random rotation (Shoemake, Graphics Gems III).
    pub fn rotation(&mut self) -> UnitQuaternion {
        geom::uniform_rotation(self.unit(), self.unit(), self.unit())
    }

    /// A uniformly random unit vector.
    pub fn unit_vector(&mut self) -> Vector3 {
        self.rotation() * Vector3::x()
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix;

    #[test]
    fn the_stream_is_splitmix64() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut rng = SplitMix(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut rng = SplitMix(7);
        for _ in 0..1000 {
            let (u, s) = (rng.unit(), rng.signed());
            assert!((0.0..1.0).contains(&u) && (-1.0..1.0).contains(&s));
        }
    }
}
