//! The few `f64` roundings the crate needs. std has them (over libm or the target's
//! instructions) but core does not, and the crate is `no_std`; each matches std's result for
//! every input, NaN, infinities and the sign of zero included (tested against std below).

/// From 2^52 up every `f64` is a whole number.
const ALL_WHOLE: f64 = 4_503_599_627_370_496.0;

/// `f64::trunc`.
pub(crate) fn trunc(x: f64) -> f64 {
    // NaN and |x| ≥ 2^52 are their own truncation; anything smaller fits an `i64` exactly.
    if !(-ALL_WHOLE < x && x < ALL_WHOLE) {
        return x;
    }
    let t = x as i64 as f64;
    // -0.5 truncates to -0, which the round trip through `i64` loses.
    if t == 0.0 && x.is_sign_negative() {
        -0.0
    } else {
        t
    }
}

/// `x.fract() == 0.0`: a finite whole number.
pub(crate) fn is_whole(x: f64) -> bool {
    x - trunc(x) == 0.0
}

/// `f64::floor`.
pub(crate) fn floor(x: f64) -> f64 {
    let t = trunc(x);
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `f64::ceil`.
pub(crate) fn ceil(x: f64) -> f64 {
    let t = trunc(x);
    if t < x {
        t + 1.0
    } else {
        t
    }
}

/// `f64::round`: halves away from zero.
pub(crate) fn round(x: f64) -> f64 {
    let t = trunc(x);
    // Exact: below 2^52 the fraction of `x` is representable, and above it is zero.
    let fraction = x - t;
    if fraction >= 0.5 {
        t + 1.0
    } else if fraction <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edge values, the quarters around zero (halves round away from it), then a deterministic
    /// spread of bit patterns.
    fn samples() -> impl Iterator<Item = f64> {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            0.49999999999999994,
            -0.49999999999999994,
            1.5,
            -1.5,
            2.5,
            -2.5,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            ALL_WHOLE - 0.5,
            -(ALL_WHOLE - 0.5),
            ALL_WHOLE,
            ALL_WHOLE + 1.0,
            9_007_199_254_740_993.0,
            9.3e18,
            -9.3e18,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let spread = (0..200_000).map(move |_| {
            // splitmix64
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            f64::from_bits(z ^ (z >> 31))
        });
        let quarters = (-4000..4000).map(|k| f64::from(k) / 4.0);
        edges.into_iter().chain(quarters).chain(spread)
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn each_matches_std() {
        for x in samples().flat_map(|x| [x, x / 1e300, x * 1e-10, x * 1e10]) {
            assert!(same(trunc(x), x.trunc()), "trunc({x:e})");
            assert!(same(floor(x), x.floor()), "floor({x:e})");
            assert!(same(ceil(x), x.ceil()), "ceil({x:e})");
            assert!(same(round(x), x.round()), "round({x:e})");
            assert_eq!(is_whole(x), x.fract() == 0.0, "is_whole({x:e})");
        }
    }
}
