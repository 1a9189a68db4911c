//! Lanes: the solver's stages are written once over a lane type that holds one value per
//! constraint of a batch: `f32` for one constraint at a time (the scalar solve), `wide::f32x4`
//! for four (SSE on x86-64) and `wide::f32x8` for eight (AVX where the build targets it, else
//! two halves of four: see `SolverLanes::WIDEST`). Every operation acts on each lane on its own
//! with IEEE single precision (no fused multiply-add, no reassociation), and a branch becomes a
//! choice per lane ([`Lane::select`]) that keeps a lane's old bits where its branch was not
//! taken, so a constraint's results are the same bits whichever width solves it
//! (`tests/solver_determinism.rs`, run on x86-64 with and without AVX).

use geom::{Real, Vector3};
use std::fmt::Debug;
use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};
use wide::{f32x4, f32x8};

/// One value per constraint of a batch.
pub(crate) trait Lane:
    Copy
    + Debug
    + Default
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Constraints per batch.
    const WIDTH: usize;
    /// A condition per lane.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// A body index per lane.
    type Indices: Copy + Debug + Default + Send + Sync + AsRef<[u32]> + AsMut<[u32]>;
    /// A row of four values per lane.
    type Rows: Copy + Default + AsRef<[[Real; 4]]> + AsMut<[[Real; 4]]>;

    fn splat(x: Real) -> Self;
    fn lane(self, i: usize) -> Real;
    fn set_lane(&mut self, i: usize, x: Real);
    /// `a > b ? a : b` per lane (SSE's `maxps`).
    fn max(self, other: Self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn gt(self, other: Self) -> Self::Mask;
    fn lt(self, other: Self) -> Self::Mask;
    fn eq(self, other: Self) -> Self::Mask;
    /// `t` where `mask` holds, `f` elsewhere.
    fn select(mask: Self::Mask, t: Self, f: Self) -> Self;
    fn any(mask: Self::Mask) -> bool;
    fn all(mask: Self::Mask) -> bool;
    /// One bit per lane, lane `i` in bit `i`: set where `mask` holds.
    fn bits(mask: Self::Mask) -> u32;
    /// Four values per lane from a row of four per lane (`rows[i]` for lane `i`): out[j] holds
    /// every lane's `rows[i][j]` (a transpose in the wide solves).
    fn from_rows(rows: &Self::Rows) -> [Self; 4];
    /// The inverse of [`Lane::from_rows`]: `row(i, r)` gets lane `i`'s four values.
    fn to_rows(columns: [Self; 4], row: impl FnMut(usize, [Real; 4]));

    /// Rust's `f32::clamp` per lane: `min` below it, `max` above it.
    #[inline]
    fn clamp(self, min: Self, max: Self) -> Self {
        let x = Self::select(self.lt(min), min, self);
        Self::select(x.gt(max), max, x)
    }
}

impl Lane for f32 {
    const WIDTH: usize = 1;
    type Mask = bool;
    type Indices = [u32; 1];
    type Rows = [[Real; 4]; 1];

    #[inline]
    fn splat(x: Real) -> Self {
        x
    }
    #[inline]
    fn lane(self, _: usize) -> Real {
        self
    }
    #[inline]
    fn set_lane(&mut self, _: usize, x: Real) {
        *self = x;
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        if self > other { self } else { other }
    }
    #[inline]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    #[inline]
    fn lt(self, other: Self) -> bool {
        self < other
    }
    #[inline]
    fn eq(self, other: Self) -> bool {
        self == other
    }
    #[inline]
    fn select(mask: bool, t: Self, f: Self) -> Self {
        if mask { t } else { f }
    }
    #[inline]
    fn any(mask: bool) -> bool {
        mask
    }
    #[inline]
    fn all(mask: bool) -> bool {
        mask
    }
    #[inline]
    fn bits(mask: bool) -> u32 {
        u32::from(mask)
    }
    #[inline]
    fn from_rows(rows: &Self::Rows) -> [Self; 4] {
        rows[0]
    }
    #[inline]
    fn to_rows(columns: [Self; 4], mut row: impl FnMut(usize, [Real; 4])) {
        row(0, columns);
    }
}

/// The lane operations `wide`'s vectors share, the same for every width.
macro_rules! wide_lane_ops {
    ($t:ident) => {
        #[inline]
        fn splat(x: Real) -> Self {
            $t::splat(x)
        }
        #[inline]
        fn lane(self, i: usize) -> Real {
            self.as_array()[i]
        }
        #[inline]
        fn set_lane(&mut self, i: usize, x: Real) {
            self.as_mut_array()[i] = x;
        }
        #[inline]
        fn max(self, other: Self) -> Self {
            // SSE's `maxps` and AVX's `vmaxps` are `a > b ? a : b`, as the scalar width's;
            // elsewhere `wide` may pick the other zero of `max(-0, +0)`, so the choice is
            // spelt out.
            #[cfg(target_feature = "sse")]
            return self.fast_max(other);
            #[cfg(not(target_feature = "sse"))]
            return self.simd_gt(other).select(self, other);
        }
        #[inline]
        fn sqrt(self) -> Self {
            $t::sqrt(self)
        }
        #[inline]
        fn abs(self) -> Self {
            $t::abs(self)
        }
        #[inline]
        fn gt(self, other: Self) -> Self {
            self.simd_gt(other)
        }
        #[inline]
        fn lt(self, other: Self) -> Self {
            self.simd_lt(other)
        }
        #[inline]
        fn eq(self, other: Self) -> Self {
            self.simd_eq(other)
        }
        #[inline]
        fn select(mask: Self, t: Self, f: Self) -> Self {
            mask.select(t, f)
        }
        #[inline]
        fn any(mask: Self) -> bool {
            mask.any()
        }
        #[inline]
        fn all(mask: Self) -> bool {
            mask.all()
        }
        #[inline]
        fn bits(mask: Self) -> u32 {
            mask.to_bitmask()
        }
    };
}

impl Lane for f32x4 {
    const WIDTH: usize = 4;
    type Mask = f32x4;
    type Indices = [u32; 4];
    type Rows = [[Real; 4]; 4];

    wide_lane_ops!(f32x4);

    #[inline]
    fn from_rows(rows: &Self::Rows) -> [Self; 4] {
        let [a, b, c, d] = *rows;
        f32x4::transpose([f32x4::new(a), f32x4::new(b), f32x4::new(c), f32x4::new(d)])
    }
    #[inline]
    fn to_rows(columns: [Self; 4], mut row: impl FnMut(usize, [Real; 4])) {
        for (i, r) in f32x4::transpose(columns).into_iter().enumerate() {
            row(i, r.to_array());
        }
    }
}

impl Lane for f32x8 {
    const WIDTH: usize = 8;
    type Mask = f32x8;
    type Indices = [u32; 8];
    type Rows = [[Real; 4]; 8];

    wide_lane_ops!(f32x8);

    #[inline]
    fn from_rows(rows: &Self::Rows) -> [Self; 4] {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
        return avx::from_rows(rows);
        // Without AVX, an `f32x8` is two `f32x4`: the four lanes' transpose for each half.
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
        {
            let half = |h: usize| {
                let rows = std::array::from_fn(|i| rows[4 * h + i]);
                <f32x4 as Lane>::from_rows(&rows).map(|c| c.to_array())
            };
            let (low, high) = (half(0), half(1));
            std::array::from_fn(|j| {
                let (l, h) = (low[j], high[j]);
                f32x8::new([l[0], l[1], l[2], l[3], h[0], h[1], h[2], h[3]])
            })
        }
    }
    #[inline]
    fn to_rows(columns: [Self; 4], row: impl FnMut(usize, [Real; 4])) {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
        avx::to_rows(columns, row);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
        {
            let mut row = row;
            for h in 0..2 {
                let half = columns.map(|c| {
                    let c = c.to_array();
                    f32x4::new([c[4 * h], c[4 * h + 1], c[4 * h + 2], c[4 * h + 3]])
                });
                <f32x4 as Lane>::to_rows(half, |i, r| row(4 * h + i, r));
            }
        }
    }
}

/// The eight lanes' transposes with AVX: rows `k` and `k + 4` side by side in one register,
/// then the 4x4 transpose within each half (AVX's shuffles act on each 128-bit half alone).
#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
mod avx {
    use super::{Real, f32x8};
    use safe_arch::{
        cast_to_m128_from_m256, extract_m128_from_m256, m128, m256, set_m128_m256, shuffle_m256,
        unpack_hi_m256, unpack_lo_m256,
    };

    /// The 4x4 transpose of `[a, b, c, d]` within each 128-bit half.
    #[inline(always)]
    fn transpose_halves([a, b, c, d]: [m256; 4]) -> [m256; 4] {
        let (ab_low, cd_low) = (unpack_lo_m256(a, b), unpack_lo_m256(c, d));
        let (ab_high, cd_high) = (unpack_hi_m256(a, b), unpack_hi_m256(c, d));
        [
            shuffle_m256::<0x44>(ab_low, cd_low),
            shuffle_m256::<0xEE>(ab_low, cd_low),
            shuffle_m256::<0x44>(ab_high, cd_high),
            shuffle_m256::<0xEE>(ab_high, cd_high),
        ]
    }

    #[inline(always)]
    pub(super) fn from_rows(rows: &[[Real; 4]; 8]) -> [f32x8; 4] {
        let pairs = std::array::from_fn(|k| {
            set_m128_m256(m128::from_array(rows[k + 4]), m128::from_array(rows[k]))
        });
        transpose_halves(pairs).map(|c| f32x8::from(c.0))
    }

    #[inline(always)]
    pub(super) fn to_rows(columns: [f32x8; 4], mut row: impl FnMut(usize, [Real; 4])) {
        let pairs = transpose_halves(columns.map(|c| m256(c.into())));
        for (k, pair) in pairs.into_iter().enumerate() {
            row(k, cast_to_m128_from_m256(pair).to_array());
            row(k + 4, extract_m128_from_m256::<1>(pair).to_array());
        }
    }
}

/// A 3x3 matrix of lanes, `m[row][column]`.
pub(crate) type M3<L> = [[L; 3]; 3];

/// `m v`, in nalgebra's order: `(m[r][0] v.x + m[r][1] v.y) + m[r][2] v.z`.
#[inline]
pub(crate) fn mul3<L: Lane>(m: &M3<L>, v: &V3<L>) -> V3<L> {
    let row = |r: &[L; 3]| r[0] * v.x + r[1] * v.y + r[2] * v.z;
    V3 {
        x: row(&m[0]),
        y: row(&m[1]),
        z: row(&m[2]),
    }
}

/// `a b`, in nalgebra's order (each column of the product is `a` times `b`'s column, as
/// [`mul3`]).
#[inline]
pub(crate) fn mul33<L: Lane>(a: &M3<L>, b: &M3<L>) -> M3<L> {
    std::array::from_fn(|r| {
        std::array::from_fn(|c| a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c])
    })
}

/// A 3-vector of lanes.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct V3<L> {
    pub(crate) x: L,
    pub(crate) y: L,
    pub(crate) z: L,
}

impl<L: Lane> V3<L> {
    #[inline]
    pub(crate) fn splat(x: Real) -> Self {
        Self {
            x: L::splat(x),
            y: L::splat(x),
            z: L::splat(x),
        }
    }
    #[inline]
    pub(crate) fn gather(mut f: impl FnMut(usize) -> Vector3) -> Self {
        let mut out = Self::default();
        for i in 0..L::WIDTH {
            out.set_lane(i, &f(i));
        }
        out
    }
    #[inline]
    pub(crate) fn lane(&self, i: usize) -> Vector3 {
        Vector3::new(self.x.lane(i), self.y.lane(i), self.z.lane(i))
    }
    #[inline]
    pub(crate) fn set_lane(&mut self, i: usize, v: &Vector3) {
        self.x.set_lane(i, v.x);
        self.y.set_lane(i, v.y);
        self.z.set_lane(i, v.z);
    }
    /// `(x x' + y y') + z z'`, as nalgebra's dot product.
    #[inline]
    pub(crate) fn dot(&self, o: &Self) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// As nalgebra's cross product: `(y z' - z y', z x' - x z', x y' - y x')`.
    #[inline]
    pub(crate) fn cross(&self, o: &Self) -> Self {
        Self {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
    /// Each component divided by `s` (nalgebra's `unscale`, not a multiplication by `1 / s`).
    #[inline]
    pub(crate) fn unscale(&self, s: L) -> Self {
        Self {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
    #[inline]
    pub(crate) fn scale(&self, s: L) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    #[inline]
    pub(crate) fn add(&self, o: &Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
    #[inline]
    pub(crate) fn sub(&self, o: &Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
    /// `t` where `mask` holds, `f` elsewhere.
    #[inline]
    pub(crate) fn select(mask: L::Mask, t: &Self, f: &Self) -> Self {
        Self {
            x: L::select(mask, t.x, f.x),
            y: L::select(mask, t.y, f.y),
            z: L::select(mask, t.z, f.z),
        }
    }
}

/// The lanes a row applies to: a mask, and whether it holds in every lane, when a choice is
/// simply the new value (the common case: four constraints with four points each), without
/// the cost of a select.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Which<L: Lane> {
    pub(crate) mask: L::Mask,
    all: bool,
}

impl<L: Lane> Which<L> {
    #[inline]
    pub(crate) fn new(mask: L::Mask) -> Self {
        Self {
            mask,
            all: L::all(mask),
        }
    }

    /// Whether the row applies to some lane.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.all || L::any(self.mask)
    }

    /// `new` in the lanes the row applies to, `old` elsewhere.
    #[inline]
    pub(crate) fn pick(&self, new: L, old: L) -> L {
        if self.all {
            new
        } else {
            L::select(self.mask, new, old)
        }
    }

    /// [`Which::pick`] for vectors.
    #[inline]
    pub(crate) fn pick3(&self, new: &V3<L>, old: &V3<L>) -> V3<L> {
        if self.all {
            *new
        } else {
            V3::select(self.mask, new, old)
        }
    }
}
