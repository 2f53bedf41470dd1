//! Reading call arguments from a byte string (a fuzzer's input or a proptest-generated vector):
//! every read succeeds, and an exhausted input reads as zeros, so any byte string is a valid
//! program and the fuzzer's mutations stay meaningful.

/// Floats that break naive code: NaN, infinities, the largest and smallest magnitudes,
/// denormals, negative zero, and values just past the documented ranges.
pub const SPECIAL_FLOATS: [f32; 16] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1.0e-45, // the smallest denormal
    -0.0,
    0.0,
    1.0e-7,
    1.0,
    -1.0,
    1.0e5,
    1.0e6,
    1.0e30,
    1.0e-30,
];

/// A cursor over the input bytes.
pub struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Input { bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) << 32 | self.u32() as u64
    }

    /// 0..n (0 when n is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        match n {
            0 => 0,
            1..=256 => self.u8() as u32 % n,
            _ => self.u32() % n,
        }
    }

    /// True with probability about `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[self.below(choices.len() as u32) as usize]
    }

    /// Any bit pattern (NaN, denormal, huge included).
    pub fn raw_f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }

    /// A float from [`SPECIAL_FLOATS`], any bit pattern, or a tame value in [-2, 2) m.
    pub fn wild_f32(&mut self) -> f32 {
        match self.below(4) {
            0 => self.pick(&SPECIAL_FLOATS),
            1 => self.raw_f32(),
            _ => self.tame_f32(),
        }
    }

    /// A finite value in [-2, 2) on a 1/64 grid: positions and targets that a game would send.
    pub fn tame_f32(&mut self) -> f32 {
        (self.u8() as f32 - 128.0) / 64.0
    }
}
