//! The Mersenne Twister (MT19937) as CPython's `random` module and NumPy's legacy
//! `RandomState` run it, so a script seeded the same way draws the same numbers here as there.
//! The generator is Matsumoto and Nishimura's; seeding follows their `init_genrand` and
//! `init_by_array`, which CPython feeds with the 32-bit words of the seed.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

#[derive(Clone)]
pub struct Mt19937 {
    state: [u32; N],
    index: usize,
}

impl Mt19937 {
    /// `init_genrand(seed)`.
    pub fn new(seed: u32) -> Mt19937 {
        let mut state = [0u32; N];
        state[0] = seed;
        for i in 1..N {
            state[i] = 1_812_433_253u32.wrapping_mul(state[i - 1] ^ (state[i - 1] >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { state, index: N }
    }

    /// `init_by_array(key)`: how CPython seeds from an integer's 32-bit words (least
    /// significant first).
    pub fn from_key(key: &[u32]) -> Mt19937 {
        let mut mt = Mt19937::new(19_650_218);
        let s = &mut mt.state;
        let (mut i, mut j) = (1usize, 0usize);
        let len = key.len().max(1);
        for _ in 0..N.max(len) {
            let prev = s[i - 1] ^ (s[i - 1] >> 30);
            s[i] = (s[i] ^ prev.wrapping_mul(1_664_525)).wrapping_add(*key.get(j).unwrap_or(&0)).wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
            if j >= len {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = s[i - 1] ^ (s[i - 1] >> 30);
            s[i] = (s[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
        }
        s[0] = 0x8000_0000;
        mt
    }

    /// CPython's `random.seed(n)` for an int `n`: its magnitude's 32-bit words as the key.
    pub fn from_int(n: i64) -> Mt19937 {
        let mut magnitude = n.unsigned_abs();
        let mut key = Vec::new();
        while magnitude > 0 {
            key.push(magnitude as u32);
            magnitude >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        Mt19937::from_key(&key)
    }

    /// The 624 state words and the position in them (NumPy's `get_state()` key and pos).
    pub fn words(&self) -> (&[u32], usize) {
        (&self.state, self.index)
    }

    /// A generator at a state `words` gave (`set_state`); `None` for a key not 624 words long
    /// or a position past it.
    pub fn from_words(key: &[u32], index: usize) -> Option<Mt19937> {
        Some(Mt19937 { state: key.try_into().ok()?, index: (index <= N).then_some(index)? })
    }

    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        let s = &mut self.state;
        for k in 0..N {
            let y = (s[k] & UPPER_MASK) | (s[(k + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            s[k] = s[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// A float in [0, 1) with 53 random bits (`genrand_res53`, CPython's `random()`).
    pub fn next_f64(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (a as f64 * 67_108_864.0 + b as f64) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for `k` up to 63: words drawn least significant first, the last one
    /// shifted down to the bits that remain.
    pub fn bits(&mut self, k: u32) -> u64 {
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return (self.next_u32() >> (32 - k)) as u64;
        }
        let mut out = 0u64;
        let mut shift = 0;
        let mut left = k;
        while left > 0 {
            let mut r = self.next_u32();
            if left < 32 {
                r >>= 32 - left;
            }
            out |= (r as u64) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Mt19937;

    #[test]
    fn matches_the_reference_and_cpython() {
        // The reference implementation's first output for init_genrand(5489).
        assert_eq!(Mt19937::new(5489).next_u32(), 3_499_211_612);
        // CPython: random.seed(42); random.random(), random.getrandbits(40)
        let mut mt = Mt19937::from_int(42);
        assert_eq!(mt.next_f64(), 0.6394267984578837);
        let mut mt = Mt19937::from_int(42);
        mt.next_f64();
        assert_eq!(mt.bits(40), python_bits_after_one_random());
    }

    /// `random.seed(42); random.random(); random.getrandbits(40)` in CPython 3.11.
    fn python_bits_after_one_random() -> u64 {
        811_856_239_313
    }

    #[test]
    fn seeds_of_any_size_and_sign_are_cpythons() {
        // random.seed(2**40 + 7); random.random() and random.seed(-3); random.random()
        assert_eq!(Mt19937::from_int((1 << 40) + 7).next_f64(), 0.6137037779936511);
        assert_eq!(Mt19937::from_int(-3).next_f64(), 0.23796462709189137);
    }
}
