//! `numpy.random.default_rng(seed)`: a `Generator` over the PCG64 bit generator, bit for bit
//! NumPy's numbers. Seeds go through `SeedSequence` (`bit_generator.pyx`), the generator is
//! O'Neill's 128-bit LCG with the XSL-RR output (`src/pcg64/pcg64.h`), and each distribution
//! draws as `src/distributions/distributions.c` and `_generator.pyx` do: doubles from the top
//! 53 bits, normals by the 256-step ziggurat, bounded integers by Lemire's method, shuffles by
//! Fisher–Yates from the end.

use std::collections::HashSet;

/// `SeedSequence`'s hashing constants (`bit_generator.pyx`).
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
/// The default `pool_size`: 128 bits of mixed entropy.
const POOL_SIZE: usize = 4;

/// `np.random.SeedSequence(entropy)` with no spawn key and the default pool size: the entropy
/// hashed into four words, from which any number of seed words can be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSequence {
    pool: [u32; POOL_SIZE],
}

impl SeedSequence {
    /// `mix_entropy` over the assembled entropy words (`_coerce_to_uint32_array`'s output):
    /// each of the first four words hashed into the pool (zeros past the end), every pool word
    /// mixed into every other, then any further words mixed into all of them.
    pub fn new(entropy: &[u32]) -> SeedSequence {
        let mut hash_const = INIT_A;
        let mut hashmix = |value: u32| {
            let value = value ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_A);
            let value = value.wrapping_mul(hash_const);
            value ^ (value >> 16)
        };
        let mix = |x: u32, y: u32| {
            let result = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
            result ^ (result >> 16)
        };
        let mut pool = [0u32; POOL_SIZE];
        for (i, word) in pool.iter_mut().enumerate() {
            *word = hashmix(entropy.get(i).copied().unwrap_or(0));
        }
        for src in 0..POOL_SIZE {
            for dst in 0..POOL_SIZE {
                if src != dst {
                    pool[dst] = mix(pool[dst], hashmix(pool[src]));
                }
            }
        }
        for &word in entropy.iter().skip(POOL_SIZE) {
            for dst in &mut pool {
                *dst = mix(*dst, hashmix(word));
            }
        }
        SeedSequence { pool }
    }

    /// `SeedSequence(n)` for a non-negative int.
    pub fn from_int(n: u128) -> SeedSequence {
        SeedSequence::new(&int_words(n))
    }

    /// `SeedSequence([n0, n1, ...])`: the ints' words concatenated (an empty list is no words,
    /// which seeds as `0` does).
    pub fn from_ints(ns: &[u128]) -> SeedSequence {
        SeedSequence::new(&ns.iter().flat_map(|&n| int_words(n)).collect::<Vec<_>>())
    }

    /// `generate_state(n_words, np.uint32)`: the pool cycled through a second hash.
    pub fn generate_state(&self, n_words: usize) -> Vec<u32> {
        let mut hash_const = INIT_B;
        (0..n_words)
            .map(|i| {
                let value = self.pool[i % POOL_SIZE] ^ hash_const;
                hash_const = hash_const.wrapping_mul(MULT_B);
                let value = value.wrapping_mul(hash_const);
                value ^ (value >> 16)
            })
            .collect()
    }

    /// `generate_state(n_words, np.uint64)`: twice as many 32-bit words, paired little-endian.
    pub fn generate_state_u64(&self, n_words: usize) -> Vec<u64> {
        self.generate_state(2 * n_words).chunks(2).map(|w| (w[0] as u64) | ((w[1] as u64) << 32)).collect()
    }
}

/// `_int_to_uint32_array`: a non-negative int's 32-bit words, least significant first (`[0]`
/// for zero).
pub fn int_words(mut n: u128) -> Vec<u32> {
    let mut words = vec![n as u32];
    n >>= 32;
    while n > 0 {
        words.push(n as u32);
        n >>= 32;
    }
    words
}

/// `PCG_DEFAULT_MULTIPLIER_128`.
const MULTIPLIER: u128 = (2_549_297_995_355_413_924 << 64) + 4_865_540_595_714_422_341;

/// NumPy's `PCG64` bit generator: the LCG's state and odd increment, plus the upper half of a
/// 64-bit draw kept for the next 32-bit one (`has_uint32`/`uinteger`), all four as
/// `bit_generator.state` reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcg64 {
    pub state: u128,
    pub inc: u128,
    pub has_uint32: bool,
    pub uinteger: u32,
}

impl Pcg64 {
    /// `pcg64_set_seed` (`pcg_setseq_128_srandom_r`): the increment from the stream
    /// selector, and the initial state stepped in twice.
    pub fn new(initstate: u128, initseq: u128) -> Pcg64 {
        let mut rng = Pcg64 { state: 0, inc: (initseq << 1) | 1, has_uint32: false, uinteger: 0 };
        rng.step();
        rng.state = rng.state.wrapping_add(initstate);
        rng.step();
        rng
    }

    /// `PCG64(seed_seq)`: `generate_state(4, np.uint64)` read as (state high, state low,
    /// increment high, increment low).
    pub fn from_seed_sequence(seed: &SeedSequence) -> Pcg64 {
        let w = seed.generate_state_u64(4);
        Pcg64::new(((w[0] as u128) << 64) | w[1] as u128, ((w[2] as u128) << 64) | w[3] as u128)
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
    }

    /// `pcg64_next64`: step, then XSL-RR (the halves xor'd, rotated by the top six bits).
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let high = (self.state >> 64) as u64;
        (high ^ self.state as u64).rotate_right((high >> 58) as u32)
    }

    /// `pcg64_next32`: the low half of a fresh 64-bit draw, its high half kept for the next call.
    pub fn next_u32(&mut self) -> u32 {
        if self.has_uint32 {
            self.has_uint32 = false;
            return self.uinteger;
        }
        let next = self.next_u64();
        self.has_uint32 = true;
        self.uinteger = (next >> 32) as u32;
        next as u32
    }

    /// `pcg64_double` (`uint64_to_double`): the top 53 bits of a 64-bit draw, scaled to [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// `np.random.Generator(PCG64(...))`: the distributions, each drawing as NumPy's does. Where
/// NumPy raises a `ValueError` on its arguments, the caller checks first; these take valid ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generator {
    pub bit_generator: Pcg64,
}

impl Generator {
    /// `np.random.default_rng(seed)` once the seed is a `SeedSequence`.
    pub fn new(seed: &SeedSequence) -> Generator {
        Generator { bit_generator: Pcg64::from_seed_sequence(seed) }
    }

    /// `random()`: `random_standard_uniform`.
    pub fn random(&mut self) -> f64 {
        self.bit_generator.next_f64()
    }

    /// `standard_normal()`: `random_standard_normal`, the ziggurat. One 64-bit draw gives the
    /// layer (low 8 bits), the sign (next bit) and a 52-bit magnitude; almost always that is
    /// inside the layer's rectangle and done. Otherwise the base layer samples the tail beyond
    /// `NOR_R` (Marsaglia's method), and the others test the wedge against the density.
    pub fn standard_normal(&mut self) -> f64 {
        loop {
            let r = self.bit_generator.next_u64();
            let idx = (r & 0xff) as usize;
            let r = r >> 8;
            let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
            let x = if r & 1 == 1 { -(rabs as f64 * WI[idx]) } else { rabs as f64 * WI[idx] };
            if rabs < KI[idx] {
                return x;
            }
            if idx == 0 {
                loop {
                    // 1 - U rather than U, so the log never sees 0 (NumPy's gh-13361).
                    let xx = -NOR_INV_R * (-self.random()).ln_1p();
                    let yy = -(-self.random()).ln_1p();
                    if yy + yy > xx * xx {
                        return if (rabs >> 8) & 1 == 1 { -(NOR_R + xx) } else { NOR_R + xx };
                    }
                }
            }
            if (FI[idx - 1] - FI[idx]) * self.random() + FI[idx] < (-0.5 * x * x).exp() {
                return x;
            }
        }
    }

    /// `random_bounded_uint64(off, rng, use_masked=False)`: `off + ` a uniform integer in
    /// `0..=rng` (wrapping), by Lemire's multiply-and-reject, on 32-bit draws when `rng` fits
    /// in 32 bits. A full-width `rng` is a raw draw, as Lemire's method can't take it.
    pub fn bounded(&mut self, off: u64, rng: u64) -> u64 {
        let bits = &mut self.bit_generator;
        let value = if rng == 0 {
            0
        } else if rng == u32::MAX as u64 {
            bits.next_u32() as u64
        } else if rng < u32::MAX as u64 {
            // buffered_bounded_lemire_uint32
            let rng_excl = rng + 1;
            let mut m = bits.next_u32() as u64 * rng_excl;
            if (m as u32 as u64) < rng_excl {
                let threshold = (u32::MAX as u64 - rng) % rng_excl;
                while (m as u32 as u64) < threshold {
                    m = bits.next_u32() as u64 * rng_excl;
                }
            }
            m >> 32
        } else if rng == u64::MAX {
            bits.next_u64()
        } else {
            // bounded_lemire_uint64
            let rng_excl = rng + 1;
            let mut m = bits.next_u64() as u128 * rng_excl as u128;
            if (m as u64) < rng_excl {
                let threshold = (u64::MAX - rng) % rng_excl;
                while (m as u64) < threshold {
                    m = bits.next_u64() as u128 * rng_excl as u128;
                }
            }
            (m >> 64) as u64
        };
        off.wrapping_add(value)
    }

    /// `integers(low, high)` (int64, `endpoint=False`): `low..high`, which must not be empty.
    pub fn integers(&mut self, low: i64, high: i64) -> i64 {
        self.integers_closed(low, high - 1)
    }

    /// `integers(low, high, endpoint=True)`: `low..=high`, as `_rand_int64` hands the closed
    /// range to `random_bounded_uint64_fill` (each element of a `size=` array is one call).
    pub fn integers_closed(&mut self, low: i64, high: i64) -> i64 {
        self.bounded(low as u64, (high as u64).wrapping_sub(low as u64)) as i64
    }

    /// `random_interval(max)`: a uniform integer in `0..=max` by masked rejection, on 32-bit
    /// draws while `max` fits in 32 bits. Shuffles use this, not Lemire's method.
    pub fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        loop {
            let value = if max <= u32::MAX as u64 {
                self.bit_generator.next_u32() as u64 & mask
            } else {
                self.bit_generator.next_u64() & mask
            };
            if value <= max {
                return value;
            }
        }
    }

    /// `shuffle(x)` along the first axis (`_shuffle_raw` with `first=1`, or the sequence path):
    /// Fisher–Yates from the end, swapping item `i` with `interval(i)`.
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.interval(i as u64) as usize;
            xs.swap(i, j);
        }
    }

    /// `permutation(n)`: `arange(n)` shuffled.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..n).collect();
        self.shuffle(&mut items);
        items
    }

    /// `choice(pop_size, size)` (with replacement, uniform): `integers(0, pop_size)` each.
    pub fn choice(&mut self, pop_size: usize, size: usize) -> Vec<usize> {
        (0..size).map(|_| self.bounded(0, pop_size as u64 - 1) as usize).collect()
    }

    /// `choice(len(p), size, p=p)` (with replacement): `size` uniforms, each placed in the
    /// normalised running sum of `p` (`cdf.searchsorted(u, side='right')`).
    pub fn choice_p(&mut self, p: &[f64], size: usize) -> Vec<usize> {
        let cdf = normalized_cdf(p);
        let uniforms: Vec<f64> = (0..size).map(|_| self.random()).collect();
        uniforms.into_iter().map(|u| cdf.partition_point(|&c| c <= u)).collect()
    }

    /// `choice(pop_size, size, replace=False, shuffle=shuffle)`. A large sample of a large
    /// population (over 10000, and `size` over `pop_size // 50`, or `// 20` unshuffled) is the
    /// tail of a partial Fisher–Yates over `arange(pop_size)`; otherwise Floyd's algorithm picks
    /// the set, shuffled afterwards if asked. Both draw with Lemire's method (`_shuffle_int`).
    pub fn choice_without_replacement(&mut self, pop_size: usize, size: usize, shuffle: bool) -> Vec<usize> {
        let cutoff = if shuffle { 50 } else { 20 };
        if pop_size > 10000 && size > pop_size / cutoff {
            let mut idx: Vec<usize> = (0..pop_size).collect();
            self.shuffle_int(&mut idx, (pop_size - size).max(1));
            return idx.split_off(pop_size - size);
        }
        let mut seen = HashSet::with_capacity(size);
        let mut idx: Vec<usize> = (pop_size - size..pop_size)
            .map(|j| {
                let val = self.bounded(0, j as u64) as usize;
                let pick = if seen.contains(&val) { j } else { val };
                seen.insert(pick);
                pick
            })
            .collect();
        if shuffle {
            self.shuffle_int(&mut idx, 1);
        }
        idx
    }

    /// `choice(len(p), size, replace=False, p=p)`: rounds of `size - found` uniforms against the
    /// running sum of `p` with the found items zeroed, each round keeping its new items in order
    /// of first appearance. `None` where NumPy raises "Fewer non-zero entries in p than size".
    pub fn choice_p_without_replacement(&mut self, p: &[f64], size: usize) -> Option<Vec<usize>> {
        if p.iter().filter(|&&q| q > 0.0).count() < size {
            return None;
        }
        let mut p = p.to_vec();
        let mut found = Vec::with_capacity(size);
        while found.len() < size {
            let uniforms: Vec<f64> = (found.len()..size).map(|_| self.random()).collect();
            for &i in &found {
                p[i] = 0.0;
            }
            let cdf = normalized_cdf(&p);
            let mut round = HashSet::new();
            for u in uniforms {
                let i = cdf.partition_point(|&c| c <= u);
                if round.insert(i) {
                    found.push(i);
                }
            }
        }
        Some(found)
    }

    /// `_shuffle_int(n, first)`: Fisher–Yates over `xs[first..]` from the end, with Lemire's
    /// bounded draws where `shuffle` uses `random_interval`.
    fn shuffle_int(&mut self, xs: &mut [usize], first: usize) {
        for i in (first..xs.len()).rev() {
            let j = self.bounded(0, i as u64) as usize;
            xs.swap(i, j);
        }
    }
}

/// `p.cumsum()` divided through by its last value, as `choice` builds its cdf.
fn normalized_cdf(p: &[f64]) -> Vec<f64> {
    let mut total = 0.0;
    let cdf: Vec<f64> = p
        .iter()
        .map(|&q| {
            total += q;
            total
        })
        .collect();
    cdf.into_iter().map(|c| c / total).collect()
}

/// The ziggurat's tables for the standard normal (`ziggurat_constants.h`): `KI[i]`, the
/// largest 52-bit magnitude inside layer `i`'s rectangle; `WI[i]`, the magnitude's scale to
/// `x`; `FI[i]`, the density at the layer's edge. NumPy's 21-digit decimals, written here as
/// the shortest decimals of the same doubles.
#[rustfmt::skip]
const KI: [u64; 256] = [
    0x000EF33D8025EF6A, 0x0000000000000000, 0x000C08BE98FBC6A8, 0x000DA354FABD8142,
    0x000E51F67EC1EEEA, 0x000EB255E9D3F77E, 0x000EEF4B817ECAB9, 0x000F19470AFA44AA,
    0x000F37ED61FFCB18, 0x000F4F469561255C, 0x000F61A5E41BA396, 0x000F707A755396A4,
    0x000F7CB2EC28449A, 0x000F86F10C6357D3, 0x000F8FA6578325DE, 0x000F9724C74DD0DA,
    0x000F9DA907DBF509, 0x000FA360F581FA74, 0x000FA86FDE5B4BF8, 0x000FACF160D354DC,
    0x000FB0FB6718B90F, 0x000FB49F8D5374C6, 0x000FB7EC2366FE77, 0x000FBAECE9A1E50E,
    0x000FBDAB9D040BED, 0x000FC03060FF6C57, 0x000FC2821037A248, 0x000FC4A67AE25BD1,
    0x000FC6A2977AEE31, 0x000FC87AA92896A4, 0x000FCA325E4BDE85, 0x000FCBCCE902231A,
    0x000FCD4D12F839C4, 0x000FCEB54D8FEC99, 0x000FD007BF1DC930, 0x000FD1464DD6C4E6,
    0x000FD272A8E2F450, 0x000FD38E4FF0C91E, 0x000FD49A9990B478, 0x000FD598B8920F53,
    0x000FD689C08E99EC, 0x000FD76EA9C8E832, 0x000FD848547B08E8, 0x000FD9178BAD2C8C,
    0x000FD9DD07A7ADD2, 0x000FDA9970105E8C, 0x000FDB4D5DC02E20, 0x000FDBF95C5BFCD0,
    0x000FDC9DEBB99A7D, 0x000FDD3B8118729D, 0x000FDDD288342F90, 0x000FDE6364369F64,
    0x000FDEEE708D514E, 0x000FDF7401A6B42E, 0x000FDFF46599ED40, 0x000FE06FE4BC24F2,
    0x000FE0E6C225A258, 0x000FE1593C28B84C, 0x000FE1C78CBC3F99, 0x000FE231E9DB1CAA,
    0x000FE29885DA1B91, 0x000FE2FB8FB54186, 0x000FE35B33558D4A, 0x000FE3B799D0002A,
    0x000FE410E99EAD7F, 0x000FE46746D47734, 0x000FE4BAD34C095C, 0x000FE50BAED29524,
    0x000FE559F74EBC78, 0x000FE5A5C8E41212, 0x000FE5EF3E138689, 0x000FE6366FD91078,
    0x000FE67B75C6D578, 0x000FE6BE661E11AA, 0x000FE6FF55E5F4F2, 0x000FE73E5900A702,
    0x000FE77B823E9E39, 0x000FE7B6E37070A2, 0x000FE7F08D774243, 0x000FE8289053F08C,
    0x000FE85EFB35173A, 0x000FE893DC840864, 0x000FE8C741F0CEBC, 0x000FE8F9387D4EF6,
    0x000FE929CC879B1D, 0x000FE95909D388EA, 0x000FE986FB939AA2, 0x000FE9B3AC714866,
    0x000FE9DF2694B6D5, 0x000FEA0973ABE67C, 0x000FEA329CF166A4, 0x000FEA5AAB32952C,
    0x000FEA81A6D5741A, 0x000FEAA797DE1CF0, 0x000FEACC85F3D920, 0x000FEAF07865E63C,
    0x000FEB13762FEC13, 0x000FEB3585FE2A4A, 0x000FEB56AE3162B4, 0x000FEB76F4E284FA,
    0x000FEB965FE62014, 0x000FEBB4F4CF9D7C, 0x000FEBD2B8F449D0, 0x000FEBEFB16E2E3E,
    0x000FEC0BE31EBDE8, 0x000FEC2752B15A15, 0x000FEC42049DAFD3, 0x000FEC5BFD29F196,
    0x000FEC75406CEEF4, 0x000FEC8DD2500CB4, 0x000FECA5B6911F12, 0x000FECBCF0C427FE,
    0x000FECD38454FB15, 0x000FECE97488C8B3, 0x000FECFEC47F91B7, 0x000FED1377358528,
    0x000FED278F844903, 0x000FED3B10242F4C, 0x000FED4DFBAD586E, 0x000FED605498C3DD,
    0x000FED721D414FE8, 0x000FED8357E4A982, 0x000FED9406A42CC8, 0x000FEDA42B85B704,
    0x000FEDB3C8746AB4, 0x000FEDC2DF416652, 0x000FEDD171A46E52, 0x000FEDDF813C8AD3,
    0x000FEDED0F909980, 0x000FEDFA1E0FD414, 0x000FEE06AE124BC4, 0x000FEE12C0D95A06,
    0x000FEE1E579006E0, 0x000FEE29734B6524, 0x000FEE34150AE4BC, 0x000FEE3E3DB89B3C,
    0x000FEE47EE2982F4, 0x000FEE51271DB086, 0x000FEE59E9407F41, 0x000FEE623528B42E,
    0x000FEE6A0B5897F1, 0x000FEE716C3E077A, 0x000FEE7858327B82, 0x000FEE7ECF7B06BA,
    0x000FEE84D2484AB2, 0x000FEE8A60B66343, 0x000FEE8F7ACCC851, 0x000FEE94207E25DA,
    0x000FEE9851A829EA, 0x000FEE9C0E13485C, 0x000FEE9F557273F4, 0x000FEEA22762CCAE,
    0x000FEEA4836B42AC, 0x000FEEA668FC2D71, 0x000FEEA7D76ED6FA, 0x000FEEA8CE04FA0A,
    0x000FEEA94BE8333B, 0x000FEEA950296410, 0x000FEEA8D9C0075E, 0x000FEEA7E7897654,
    0x000FEEA678481D24, 0x000FEEA48AA29E83, 0x000FEEA21D22E4DA, 0x000FEE9F2E352024,
    0x000FEE9BBC26AF2E, 0x000FEE97C524F2E4, 0x000FEE93473C0A3A, 0x000FEE8E40557516,
    0x000FEE88AE369C7A, 0x000FEE828E7F3DFD, 0x000FEE7BDEA7B888, 0x000FEE749BFF37FF,
    0x000FEE6CC3A9BD5E, 0x000FEE64529E007E, 0x000FEE5B45A32888, 0x000FEE51994E57B6,
    0x000FEE474A0006CF, 0x000FEE3C53E12C50, 0x000FEE30B2E02AD8, 0x000FEE2462AD8205,
    0x000FEE175EB83C5A, 0x000FEE09A22A1447, 0x000FEDFB27E349CC, 0x000FEDEBEA76216C,
    0x000FEDDBE422047E, 0x000FEDCB0ECE39D3, 0x000FEDB964042CF4, 0x000FEDA6DCE938C9,
    0x000FED937237E98D, 0x000FED7F1C38A836, 0x000FED69D2B9C02B, 0x000FED538D06AE00,
    0x000FED3C41DEA422, 0x000FED23E76A2FD8, 0x000FED0A732FE644, 0x000FECEFDA07FE34,
    0x000FECD4100EB7B8, 0x000FECB708956EB4, 0x000FEC98B61230C1, 0x000FEC790A0DA978,
    0x000FEC57F50F31FE, 0x000FEC356686C962, 0x000FEC114CB4B335, 0x000FEBEB948E6FD0,
    0x000FEBC429A0B692, 0x000FEB9AF5EE0CDC, 0x000FEB6FE1C98542, 0x000FEB42D3AD1F9E,
    0x000FEB13B00B2D4B, 0x000FEAE2591A02E9, 0x000FEAAEAE992257, 0x000FEA788D8EE326,
    0x000FEA3FCFFD73E5, 0x000FEA044C8DD9F6, 0x000FE9C5D62F563B, 0x000FE9843BA947A4,
    0x000FE93F471D4728, 0x000FE8F6BD76C5D6, 0x000FE8AA5DC4E8E6, 0x000FE859E07AB1EA,
    0x000FE804F690A940, 0x000FE7AB488233C0, 0x000FE74C751F6AA5, 0x000FE6E8102AA202,
    0x000FE67DA0B6ABD8, 0x000FE60C9F38307E, 0x000FE5947338F742, 0x000FE51470977280,
    0x000FE48BD436F458, 0x000FE3F9BFFD1E37, 0x000FE35D35EEB19C, 0x000FE2B5122FE4FE,
    0x000FE20003995557, 0x000FE13C82788314, 0x000FE068C4EE67B0, 0x000FDF82B02B71AA,
    0x000FDE87C57EFEAA, 0x000FDD7509C63BFD, 0x000FDC46E529BF13, 0x000FDAF8F82E0282,
    0x000FD985E1B2BA75, 0x000FD7E6EF48CF04, 0x000FD613ADBD650B, 0x000FD40149E2F012,
    0x000FD1A1A7B4C7AC, 0x000FCEE204761F9E, 0x000FCBA8D85E11B2, 0x000FC7D26ECD2D22,
    0x000FC32B2F1E22ED, 0x000FBD6581C0B83A, 0x000FB606C4005434, 0x000FAC40582A2874,
    0x000F9E971E014598, 0x000F89FA48A41DFC, 0x000F66C5F7F0302C, 0x000F1A5A4B331C4A,
];
#[rustfmt::skip]
const WI: [f64; 256] = [
    8.683627060801306e-16, 4.779330175727737e-17, 6.354352417405262e-17, 7.454870481247696e-17,
    8.3293668157931e-17, 9.068060405059482e-17, 9.714860076567762e-17, 1.0294750314241019e-16,
    1.0823430288447684e-16, 1.131147019610903e-16, 1.176635945702292e-16, 1.2193617278714363e-16,
    1.2597439914637093e-16, 1.2981099886264032e-16, 1.3347203736824123e-16, 1.3697864842571203e-16,
    1.4034823001242382e-16, 1.4359529452056943e-16, 1.4673208742364422e-16, 1.4976904668391037e-16,
    1.5271515003596198e-16, 1.5557818169460764e-16, 1.5836494009290885e-16, 1.6108140175274928e-16,
    1.6373285203969853e-16, 1.6632399058420835e-16, 1.6885901708676596e-16, 1.713417017655966e-16,
    1.737754436586486e-16, 1.7616331923000996e-16, 1.7850812316976727e-16, 1.8081240285799152e-16,
    1.830784876482675e-16, 1.853085138861802e-16, 1.8750444639373882e-16, 1.896680970077476e-16,
    1.918011406483862e-16, 1.9390512930625104e-16, 1.9598150426628824e-16, 1.9803160683128174e-16,
    2.000566877627333e-16, 2.0205791562071654e-16, 2.0403638415480212e-16, 2.0599311887403706e-16,
    2.079290829041402e-16, 2.0984518222370352e-16, 2.1174227035760342e-16, 2.1362115259449868e-16,
    2.1548258978581458e-16, 2.1732730177564367e-16, 2.191559705042727e-16, 2.2096924282235318e-16,
    2.2276773304789553e-16, 2.2455202529414355e-16, 2.263226755928568e-16, 2.280802138345017e-16,
    2.2982514554424684e-16, 2.3155795351040804e-16, 2.3327909928004356e-16, 2.3498902453470955e-16,
    2.3668815235791604e-16, 2.3837688840454243e-16, 2.4005562198135063e-16, 2.4172472704675025e-16,
    2.433845631371103e-16, 2.4503547622614954e-16, 2.466777995232705e-16, 2.4831185421610877e-16,
    2.4993795016204524e-16, 2.515563865329658e-16, 2.5316745241713583e-16, 2.547714273816944e-16,
    2.563685819989397e-16, 2.579591783392867e-16, 2.5954347043351707e-16, 2.6112170470670194e-16,
    2.6269412038597256e-16, 2.6426094988411895e-16, 2.658224191608307e-16, 2.6737874806323633e-16,
    2.689301506472616e-16, 2.704768354811995e-16, 2.720190059327732e-16, 2.735568604408679e-16,
    2.7509059277301666e-16, 2.7662039226963903e-16, 2.781464440759544e-16, 2.79668929362423e-16,
    2.8118802553450207e-16, 2.827039064324479e-16, 2.842167425218406e-16, 2.8572670107546015e-16,
    2.87233946347098e-16, 2.887386397378482e-16, 2.9024093995538423e-16, 2.9174100316669455e-16,
    2.9323898314471816e-16, 2.947350314092935e-16, 2.9622929736280665e-16, 2.977219284209029e-16,
    2.992130701386013e-16, 3.007028663321331e-16, 3.0219145919680615e-16, 3.036789894211802e-16,
    3.051655962978219e-16, 3.0665141783089545e-16, 3.081365908408297e-16, 3.0962125106629225e-16,
    3.111055332636893e-16, 3.125895713043999e-16, 3.140734982699446e-16, 3.1555744654528006e-16,
    3.1704154791040285e-16, 3.1852593363044065e-16, 3.2001073454440114e-16, 3.214960811527447e-16,
    3.2298210370394156e-16, 3.244689322801698e-16, 3.2595669688230784e-16, 3.2744552751437067e-16,
    3.2893555426753697e-16, 3.3042690740391284e-16, 3.3191971744017523e-16, 3.3341411523123725e-16,
    3.3491023205407785e-16, 3.364081996918765e-16, 3.37908150518595e-16, 3.394102175841489e-16,
    3.409145347003126e-16, 3.424212365275018e-16, 3.4393045866258313e-16, 3.454423377278584e-16,
    3.4695701146137835e-16, 3.4847461880874137e-16, 3.499953000165381e-16, 3.5151919672760744e-16,
    3.53046452078274e-16, 3.5457721079774357e-16, 3.5611161930983884e-16, 3.5764982583726505e-16,
    3.59191980508603e-16, 3.6073823546823514e-16, 3.6228874498941915e-16, 3.6384366559073444e-16,
    3.65403156156137e-16, 3.669673780588701e-16, 3.685364952894914e-16, 3.7011067458828983e-16,
    3.716900855823823e-16, 3.7327490092779435e-16, 3.7486529645684887e-16, 3.7646145133120287e-16,
    3.7806354820089604e-16, 3.7967177336979443e-16, 3.8128631696783774e-16, 3.829073731305243e-16,
    3.8453514018609596e-16, 3.8616982085091493e-16, 3.878116224335587e-16, 3.894607570481926e-16,
    3.9111744183782054e-16, 3.9278189920805415e-16, 3.944543570720877e-16, 3.9613504910761354e-16,
    3.9782421502646826e-16, 3.995221008578565e-16, 4.012289592460629e-16, 4.029450497636328e-16,
    4.04670639241075e-16, 4.0640600211422504e-16, 4.0815142079049387e-16, 4.0990718603532664e-16,
    4.1167359738030257e-16, 4.134509635544236e-16, 4.1523960294026883e-16, 4.170398440568316e-16,
    4.1885202607101123e-16, 4.206764993399015e-16, 4.2251362598620494e-16, 4.243637805093078e-16,
    4.262273504347798e-16, 4.2810473700531167e-16, 4.2999635591638323e-16, 4.3190263810026294e-16,
    4.338240305622791e-16, 4.357609972736849e-16, 4.3771402012585875e-16, 4.3968359995105214e-16,
    4.4167025761542035e-16, 4.4367453519065673e-16, 4.456969972112043e-16, 4.477382320247534e-16,
    4.49798853244555e-16, 4.518795013130059e-16, 4.539808451870034e-16, 4.561035841567422e-16,
    4.582484498109567e-16, 4.604162081631153e-16, 4.626076619547846e-16, 4.648236531543207e-16,
    4.670650656712631e-16, 4.693328283093329e-16, 4.716279179838351e-16, 4.739513632325867e-16,
    4.763042480533137e-16, 4.786877161048723e-16, 4.811029753147417e-16, 4.835513029411525e-16,
    4.860340511450812e-16, 4.885526531353603e-16, 4.91108629959527e-16, 4.937035980240335e-16,
    4.963392774403987e-16, 4.990175013091822e-16, 5.017402260718089e-16, 5.045095430818727e-16,
    5.073276915733542e-16, 5.101970732341562e-16, 5.131202686306784e-16, 5.161000557743228e-16,
    5.191394311757699e-16, 5.222416338000234e-16, 5.254101724177597e-16, 5.286488569504945e-16,
    5.3196183453384e-16, 5.353536311816497e-16, 5.388292001334053e-16, 5.423939782201712e-16,
    5.46053951907478e-16, 5.498157350892814e-16, 5.536866612467876e-16, 5.576748932926576e-16,
    5.617895553555417e-16, 5.660408920082422e-16, 5.704404621291389e-16, 5.750013768919895e-16,
    5.797385945724594e-16, 5.846692893455479e-16, 5.898133176477899e-16, 5.951938149641444e-16,
    6.008379696271908e-16, 6.067780409333449e-16, 6.130527208725282e-16, 6.197089894581626e-16,
    6.268046963301284e-16, 6.344122407127506e-16, 6.426239659548055e-16, 6.515603317344994e-16,
    6.613827885097664e-16, 6.723150462505587e-16, 6.846803417564259e-16, 6.98971833638762e-16,
    7.159994934830664e-16, 7.372424301798799e-16, 7.658936370805573e-16, 8.113849337656484e-16,
];
#[rustfmt::skip]
const FI: [f64; 256] = [
    1.0, 0.9771017012676716, 0.9598790918001067, 0.9451989534422996,
    0.9320600759592305, 0.919991505039347, 0.9087264400521309, 0.8980959218983434,
    0.8879846607558334, 0.8783096558089174, 0.869008688036857, 0.8600336211963315,
    0.851346258458678, 0.8429156531122042, 0.8347162929868834, 0.8267268339462214,
    0.8189291916037024, 0.8113078743126563, 0.8038494831709643, 0.796542330422959,
    0.7893761435660246, 0.7823418326548025, 0.7754313049811872, 0.7686373157984863,
    0.7619533468367954, 0.7553735065070961, 0.7488924472191568, 0.742505296340151,
    0.7362075981268627, 0.7299952645614762, 0.7238645334686302, 0.717811932630722,
    0.7118342488782484, 0.7059285013327543, 0.7000919181365116, 0.6943219161261167,
    0.6886160830046718, 0.6829721616449949, 0.6773880362187735, 0.6718617198970821,
    0.6663913439087501, 0.6609751477766631, 0.6556114705796973, 0.6502987431108167,
    0.6450354808208223, 0.6398202774530566, 0.6346517992876236, 0.6295287799248367,
    0.6244500155470265, 0.6194143606058343, 0.6144207238889139, 0.6094680649257734,
    0.6045553906974678, 0.5996817526191253, 0.5948462437679874, 0.590047996332826,
    0.5852861792633715, 0.5805599961007909, 0.5758686829723537, 0.5712115067352532,
    0.5665877632561644, 0.5619967758145243, 0.557437893618766, 0.5529104904258323,
    0.5484139632552658, 0.5439477311900263, 0.5395112342569521, 0.5351039323804576,
    0.5307253044036621, 0.5263748471716845, 0.5220520746723218, 0.5177565172297564,
    0.513487720747327, 0.5092452459957479, 0.5050286679434681, 0.5008375751261487,
    0.4966715690524897, 0.49253026364386854, 0.48841328470545803, 0.4843202694266833,
    0.48025086590904675, 0.47620473271950586, 0.4721815384677302, 0.4681809614056936,
    0.46420268904817436, 0.46024641781284287, 0.45631185267871643, 0.4523987068618485,
    0.44850670150720306, 0.4446355653957394, 0.440785034665804, 0.43695485254798555,
    0.43314476911265226, 0.4293545410294414, 0.42558393133802197, 0.4218327092294959,
    0.4181006498378482, 0.4143875340408911, 0.41069314827018816, 0.40701728432947337,
    0.4033597392211145, 0.3997203149801972, 0.39609881851583245, 0.3924950614593156,
    0.3889088600187887, 0.3853400348400773, 0.38178841087339366, 0.3782538172456192,
    0.37473608713789114, 0.3712350576682395, 0.3677505697790326, 0.36428246812900406,
    0.36083060098964803, 0.3573948201457805, 0.3539749808000768, 0.3505709414814061,
    0.34718256395679364, 0.3438097131468507, 0.34045225704452187, 0.33711006663700605,
    0.33378301583071845, 0.3304709813791636, 0.3271738428136014, 0.3238914823763911,
    0.32062378495690536, 0.3173706380299136, 0.3141319315963372, 0.3109075581262865,
    0.30769741250429206, 0.30450139197665, 0.30131939610080305, 0.2981513266966855,
    0.2949970877999618, 0.2918565856170952, 0.2887297284821829, 0.28561642681550176,
    0.2825165930837076, 0.27943014176163794, 0.2763569892956683, 0.27329705406857707,
    0.27025025636587546, 0.26721651834356147, 0.2641957639972612, 0.2611879191327212,
    0.25819291133761924, 0.25521066995466196, 0.2522411260559422, 0.24928421241852852,
    0.24633986350126383, 0.2434080154227503, 0.2404886059405006, 0.2375815744312381,
    0.23468686187233, 0.23180441082433872, 0.22893416541468034, 0.22607607132238028,
    0.22323007576391748, 0.220396127480152, 0.21757417672433113, 0.21476417525117358,
    0.21196607630703018, 0.20917983462112508, 0.2064054063978808, 0.2036427493103349,
    0.2008918224946566, 0.19815258654577514, 0.1954250035141343, 0.19270903690358918,
    0.19000465167046499, 0.1873118142238003, 0.18463049242679927, 0.18196065559952251,
    0.17930227452284758, 0.17665532144373486, 0.17401977008183855, 0.17139559563750575,
    0.1687827748012113, 0.1661812857644819, 0.16359110823236558, 0.161012223437511,
    0.15844461415592428, 0.1558882647244792, 0.15334316106026286, 0.15080929068184568,
    0.14828664273257455, 0.14577520800599403, 0.14327497897351346, 0.1407859498144447,
    0.13830811644855073, 0.13584147657125376, 0.13338602969166916, 0.13094177717364436,
    0.12850872227999957, 0.1260868702201859, 0.12367622820159657, 0.1212768054847903,
    0.11888861344291006, 0.11651166562561087, 0.11414597782783849, 0.11179156816383809,
    0.1094484571468118, 0.1071166677746838, 0.10479622562248707, 0.10248715894193525,
    0.10018949876881002, 0.09790327903886246, 0.095628536713009, 0.09336531191269101,
    0.09111364806637376, 0.08887359206827589, 0.08664519445055807, 0.08442850957035347,
    0.0822235958132029, 0.08003051581466307, 0.07784933670209612, 0.07568013035892718,
    0.07352297371398132, 0.0713779490588904, 0.06924514439700676, 0.0671246538277885,
    0.0650165779712429, 0.06292102443775814, 0.06083810834953988, 0.05876795292093374,
    0.0567106901062029, 0.05466646132488892, 0.05263541827679219, 0.05061772386094778,
    0.04861355321586854, 0.04662309490193038, 0.044646552251294463, 0.04268414491647446,
    0.04073611065594094, 0.03880270740452615, 0.036884215688567305, 0.034980941461716125,
    0.03309321945857858, 0.0312214171919203, 0.02936593975813336, 0.027527235669603113,
    0.02570580400854891, 0.02390220330579588, 0.02211706270730885, 0.02035109623004451,
    0.018605121275724622, 0.016880083152543142, 0.01517708830793531, 0.013497450601739867,
    0.011842757857907879, 0.010214971439701459, 0.008616582769398726, 0.007050875471373222,
    0.0055224032992509916, 0.0040379725933630236, 0.0026090727461021593, 0.001260285930498598,
];
/// `ziggurat_nor_r`: where the base layer's tail begins, and `ziggurat_nor_inv_r` (NumPy's
/// constant, not computed).
const NOR_R: f64 = 3.654152885361009;
const NOR_INV_R: f64 = 0.2736612373297583;

#[cfg(test)]
mod tests {
    use super::{Generator, Pcg64, SeedSequence};

    /// `np.random.default_rng(seed)`.
    fn rng(seed: u128) -> Generator {
        Generator::new(&SeedSequence::from_int(seed))
    }

    /// Bit-for-bit equality of floats (`assert_eq!` would let `0.0 == -0.0` through).
    fn assert_bits(got: &[f64], want: &[f64]) {
        let bits = |xs: &[f64]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(got), bits(want), "{got:?} != {want:?}");
    }

    fn draw<T>(g: &mut Generator, n: usize, mut f: impl FnMut(&mut Generator) -> T) -> Vec<T> {
        (0..n).map(|_| f(g)).collect()
    }

    /// `(state, inc, has_uint32, uinteger)`, as `bit_generator.state` shows them.
    fn state(g: &Generator) -> (u128, u128, bool, u32) {
        let b = &g.bit_generator;
        (b.state, b.inc, b.has_uint32, b.uinteger)
    }

    #[test]
    fn seed_sequences_are_numpys() {
        // np.random.SeedSequence(0).generate_state(8)
        let words = [2968811710, 3677149159, 745650761, 2884920346, 2642120001, 549907821, 574372308, 742431198];
        assert_eq!(SeedSequence::from_int(0).generate_state(8), words);
        // np.random.SeedSequence(2**70 + 3).generate_state(4, np.uint64)
        let words = [4943007236101998820, 12091938953640079810, 11493795787252505438, 8139457820393360652];
        assert_eq!(SeedSequence::from_int((1 << 70) + 3).generate_state_u64(4), words);
        // np.random.SeedSequence([5] * 7).generate_state(5): entropy past the pool's four words.
        let words = [608741994, 1101638733, 2724341254, 1288447134, 2032359537];
        assert_eq!(SeedSequence::from_ints(&[5; 7]).generate_state(5), words);
    }

    #[test]
    fn seeded_states_are_numpys() {
        // np.random.default_rng(seed).bit_generator.state['state'] for each seed.
        let cases: [(&[u128], u128, u128); 7] = [
            (&[0], 0x1aa1b5345996452d09585eb7a69561e3, 0x418ddadb3af71a82588133bc447873a9),
            (&[42], 0xcea44f6798798f2aacbc7c9d68860ac8, 0xfa505436c9a8416e66caf2e28d25abff),
            (&[12345], 0x1905e0335aae96349199b0d09775add5, 0xc9c7353e6e2b1f287d761f2d4027fae7),
            (&[(1 << 70) + 3], 0xc4dd53ca36b715f58d34a46de147be20, 0x3f0454be582236bce1ea5386a1a49a19),
            (&[u128::MAX], 0x930e3f4e44cf5b5bcb03c85fecff336d, 0xa67e37a5ef11d083538c40f608105745),
            (&[1, 2, 3], 0xb5f7801c017411bef4f61d010361d979, 0x21efe6ce1468888b311a8c35e9261f19),
            (&[], 0x1aa1b5345996452d09585eb7a69561e3, 0x418ddadb3af71a82588133bc447873a9),
        ];
        for (seed, s, inc) in cases {
            let pcg = Pcg64::from_seed_sequence(&SeedSequence::from_ints(seed));
            assert_eq!(pcg, Pcg64 { state: s, inc, has_uint32: false, uinteger: 0 }, "seed {seed:?}");
        }
    }

    #[test]
    fn raw_draws_are_numpys() {
        // [hex(v) for v in np.random.default_rng(seed).bit_generator.random_raw(3)]
        let cases: [(u128, [u64; 3]); 4] = [
            (0, [0xa30febcfd9c2825f, 0x4510bdf882d9d721, 0x0a7d3da94ecde8b8]),
            (42, [0xc621fbcd16d92688, 0x705a5661a791ffc1, 0xdbcd12c26eda1624]),
            (12345, [0x3a32b18db2ffc19d, 0x51171315c9e4c4de, 0xcc2024823444efd9]),
            ((1 << 70) + 3, [0x6b9e7d80244da682, 0x492f04c2452ccfdd, 0x1b34b70f0a2ac141]),
        ];
        for (seed, want) in cases {
            let mut g = rng(seed);
            assert_eq!(draw(&mut g, 3, |g| g.bit_generator.next_u64()), want, "seed {seed}");
        }
    }

    #[test]
    fn uniforms_are_numpys() {
        // np.random.default_rng(seed).random(5)
        let cases: [(u128, [f64; 5]); 4] = [
            (
                0,
                [0.6369616873214543, 0.2697867137638703, 0.04097352393619469, 0.016527635528529094, 0.8132702392002724],
            ),
            (42, [0.7739560485559633, 0.4388784397520523, 0.8585979199113825, 0.6973680290593639, 0.09417734788764953]),
            (
                12345,
                [0.22733602246716966, 0.31675833970975287, 0.7973654573327341, 0.6762546707509746, 0.391109550601909],
            ),
            (
                (1 << 70) + 3,
                [0.4203871190878119, 0.2858736967365757, 0.10627311818295038, 0.2969252123735987, 0.3791659975542301],
            ),
        ];
        for (seed, want) in cases {
            assert_bits(&draw(&mut rng(seed), 5, Generator::random), &want);
        }
        // np.random.default_rng(0).uniform(-1.5, 2.5, 3)
        let want = [1.0478467492858172, -0.42085314494451875, -1.3361059042552212];
        assert_bits(&draw(&mut rng(0), 3, |g| -1.5 + (2.5 - -1.5) * g.random()), &want);
    }

    #[test]
    fn normals_are_numpys() {
        // np.random.default_rng(seed).standard_normal(8)
        let cases: [(u128, [f64; 8]); 4] = [
            (
                0,
                [
                    0.1257302210933933,
                    -0.1321048632913019,
                    0.6404226504432821,
                    0.10490011715303971,
                    -0.535669373161111,
                    0.36159505490948474,
                    1.3040000451301372,
                    0.9470809631292422,
                ],
            ),
            (
                42,
                [
                    0.30471707975443135,
                    -1.0399841062404955,
                    0.7504511958064572,
                    0.9405647163912139,
                    -1.9510351886538364,
                    -1.302179506862318,
                    0.12784040316728537,
                    -0.3162425923435822,
                ],
            ),
            (
                12345,
                [
                    -1.4238250364546312,
                    1.2637284581291104,
                    -0.8706617379590857,
                    -0.2591732349343976,
                    -0.07534330701052097,
                    -0.740884652085609,
                    -1.3677927017829434,
                    0.6488928021930399,
                ],
            ),
            (
                (1 << 70) + 3,
                [
                    0.5624099785001252,
                    -0.6749900723949153,
                    -0.9382145225384497,
                    0.8052680406946251,
                    -0.07838631773512765,
                    -1.4181189623216455,
                    1.3629630728897546,
                    -0.1194821519168154,
                ],
            ),
        ];
        for (seed, want) in cases {
            assert_bits(&draw(&mut rng(seed), 8, Generator::standard_normal), &want);
        }
        // np.random.default_rng(0).normal(10, 0.5, 3)
        let want = [10.062865110546698, 9.933947568354348, 10.32021132522164];
        assert_bits(&draw(&mut rng(0), 3, |g| 10.0 + 0.5 * g.standard_normal()), &want);
    }

    #[test]
    fn the_ziggurats_slow_paths_are_numpys() {
        // x = np.random.default_rng(2024).standard_normal(200000): the xor and the wrapping sum
        // of the values' bits, how many lie beyond ziggurat_nor_r (the tail), the last value,
        // and the state after.
        let mut g = rng(2024);
        let xs = draw(&mut g, 200_000, Generator::standard_normal);
        assert_eq!(xs.iter().fold(0, |acc, x| acc ^ x.to_bits()), 18386111882744312649);
        assert_eq!(xs.iter().fold(0u64, |acc, x| acc.wrapping_add(x.to_bits())), 17836075556865450601);
        assert_eq!(xs.iter().filter(|x| x.abs() > super::NOR_R).count(), 51);
        assert_bits(&xs[xs.len() - 1..], &[-0.2170357995614738]);
        let want = (0xe51910e0879aed4815507082cac7f3c6, 0xc67e5ec6f768fa51df440b34fffb7769, false, 0);
        assert_eq!(state(&g), want);
    }

    #[test]
    fn integers_are_numpys() {
        // np.random.default_rng(seed).integers(0, 10, 8) (32-bit Lemire on buffered halves)
        // and .integers(0, 2**40, 4) (64-bit Lemire).
        let cases: [(u128, [i64; 8], [i64; 4]); 4] = [
            (0, [8, 6, 5, 2, 3, 0, 0, 0], [700346781657, 296633628802, 45050865998, 18172327443]),
            (42, [0, 7, 6, 4, 4, 8, 0, 6], [850973674774, 482551947687, 944038396526, 766764256790]),
            (12345, [6, 2, 7, 3, 2, 7, 6, 6], [249958600114, 348279477705, 876712591924, 743549873828]),
            ((1 << 70) + 3, [1, 4, 2, 2, 0, 1, 5, 2], [462220525604, 314321453637, 116848529162, 326472723584]),
        ];
        for (seed, small, wide) in cases {
            assert_eq!(draw(&mut rng(seed), 8, |g| g.integers(0, 10)), small, "seed {seed}");
            assert_eq!(draw(&mut rng(seed), 4, |g| g.integers(0, 1 << 40)), wide, "seed {seed}");
        }
        // np.random.default_rng(11).integers(-3, 3, 6, endpoint=True)
        assert_eq!(draw(&mut rng(11), 6, |g| g.integers_closed(-3, 3)), [-3, -3, 2, 0, 1, 1]);
        // np.random.default_rng(11).integers(-2**62, 2**62, 4)
        let want = [-3425835205433203161, -6660543376605901, 936157113489961534, -4347076620844501527];
        assert_eq!(draw(&mut rng(11), 4, |g| g.integers(-(1 << 62), 1 << 62)), want);
    }

    #[test]
    fn integer_ranges_with_special_cases_are_numpys() {
        // r = np.random.default_rng(3), then in turn: r.integers(0, 1) (no draw),
        // r.integers(0, 2**32) (a raw 32-bit draw), r.integers(-2**63, 2**63 - 1, endpoint=True)
        // (a raw 64-bit draw), r.integers(5, 5, endpoint=True), r.integers(0, 2**32) (the kept
        // half), with r.bit_generator.state after the first, second and last.
        let inc = 0xa7043c160277735a2ed88b8bc66abe1f;
        let mut g = rng(3);
        assert_eq!(g.integers(0, 1), 0);
        assert_eq!(state(&g), (0xf38b68fdd16b0f8da7f7267aef605897, inc, false, 0));
        assert_eq!(g.integers(0, 1 << 32), 3485385464);
        assert_eq!(state(&g), (0x8fa2dfbdeebf6c4cf254c87d41d7b8d2, inc, true, 367860371));
        assert_eq!(g.integers_closed(i64::MIN, i64::MAX), -4854989227711015947);
        assert_eq!(g.integers_closed(5, 5), 5);
        assert_eq!(g.integers(0, 1 << 32), 367860371);
        assert_eq!(state(&g), (0xd822a1aac7ca214d256d864d86815ab9, inc, false, 367860371));
    }

    #[test]
    fn mixed_calls_share_the_kept_half_as_numpy() {
        // r = np.random.default_rng(7); r.random(), r.integers(0, 10), r.standard_normal(),
        // r.integers(0, 10), r.integers(0, 2**40), r.integers(0, 10), r.uniform(2, 5),
        // r.normal(1, 2), r.choice(4, p=[.1, .2, .3, .4]), r.permutation(5), r.integers(-5, 5),
        // then r.bit_generator.state.
        let mut g = rng(7);
        assert_bits(&[g.random()], &[0.625095466604667]);
        assert_eq!(g.integers(0, 10), 6);
        assert_bits(&[g.standard_normal()], &[-0.2741378553622176]);
        assert_eq!(g.integers(0, 10), 8);
        assert_eq!(g.integers(0, 1 << 40), 247617924053);
        assert_eq!(g.integers(0, 10), 0);
        // (`uniform` and `normal` scale these draws: `low + (high − low)·u`, `loc + scale·z`.)
        assert_bits(&[2.0 + (5.0 - 2.0) * g.random()], &[4.620660336188786]);
        assert_bits(&[1.0 + 2.0 * g.standard_normal()], &[1.120287205194877]);
        assert_eq!(g.choice_p(&[0.1, 0.2, 0.3, 0.4], 1), [3]);
        assert_eq!(g.permutation(5), [0, 3, 4, 2, 1]);
        assert_eq!(g.integers(-5, 5), -1);
        let want = (0x5a1261bf2598c3632bd5feb16dc531c6, 0xc4751896ce8acebf66887f5ac070d959, false, 2009765319);
        assert_eq!(state(&g), want);
    }

    #[test]
    fn shuffles_are_numpys() {
        // np.random.default_rng(seed).permutation(10)
        let cases: [(u128, [usize; 10]); 4] = [
            (0, [4, 6, 2, 7, 3, 5, 9, 0, 8, 1]),
            (42, [5, 6, 0, 7, 3, 2, 4, 9, 1, 8]),
            (12345, [4, 8, 1, 3, 7, 9, 6, 0, 2, 5]),
            ((1 << 70) + 3, [3, 6, 7, 8, 4, 1, 9, 5, 0, 2]),
        ];
        for (seed, want) in cases {
            assert_eq!(rng(seed).permutation(10), want, "seed {seed}");
        }
        // l = list(range(7)); np.random.default_rng(1).shuffle(l)
        let mut items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
        rng(1).shuffle(&mut items);
        assert_eq!(items, ['f', 'a', 'b', 'e', 'c', 'g', 'd']);
    }

    #[test]
    fn choices_are_numpys() {
        // np.random.default_rng(seed).choice(5, 3, replace=False) and
        // .choice(4, 6, p=[.1, .2, .3, .4])
        let cases: [(u128, [usize; 3], [usize; 6]); 4] = [
            (0, [3, 4, 2], [3, 1, 0, 0, 3, 3]),
            (42, [4, 0, 3], [3, 2, 3, 3, 0, 3]),
            (12345, [0, 3, 2], [1, 2, 3, 3, 2, 2]),
            ((1 << 70) + 3, [1, 4, 0], [2, 1, 1, 1, 2, 3]),
        ];
        for (seed, without, weighted) in cases {
            assert_eq!(rng(seed).choice_without_replacement(5, 3, true), without, "seed {seed}");
            assert_eq!(rng(seed).choice_p(&[0.1, 0.2, 0.3, 0.4], 6), weighted, "seed {seed}");
        }
        // np.random.default_rng(0).integers(0, 10, 8): choice(10, 8) is the same draw.
        assert_eq!(rng(0).choice(10, 8), [8, 6, 5, 2, 3, 0, 0, 0]);
        // np.random.default_rng(9).choice(5, 3, replace=False, p=[.1, .2, .3, .2, .2]) and
        // .choice(6, 6, replace=False, p=[.5, .1, .1, .1, .1, .1]) (several rounds)
        assert_eq!(rng(9).choice_p_without_replacement(&[0.1, 0.2, 0.3, 0.2, 0.2], 3), Some(vec![4, 1, 3]));
        let p = [0.5, 0.1, 0.1, 0.1, 0.1, 0.1];
        assert_eq!(rng(9).choice_p_without_replacement(&p, 6), Some(vec![4, 0, 2, 3, 5, 1]));
        assert_eq!(rng(9).choice_p_without_replacement(&[0.5, 0.5, 0.0], 3), None);
    }

    #[test]
    fn floyds_choices_are_numpys() {
        // np.random.default_rng(seed).choice(100, 90, replace=False)
        let cases: [(u128, [usize; 90]); 2] = [
            (
                0,
                [
                    47, 21, 14, 66, 48, 86, 38, 83, 94, 53, 79, 22, 78, 85, 15, 81, 18, 17, 90, 37, 30, 9, 31, 45, 23,
                    74, 65, 51, 11, 7, 46, 92, 41, 26, 54, 88, 59, 99, 82, 8, 64, 36, 60, 6, 95, 84, 16, 52, 75, 73,
                    25, 56, 76, 43, 35, 63, 20, 67, 80, 44, 3, 57, 24, 55, 61, 69, 91, 68, 13, 50, 97, 58, 93, 0, 10,
                    70, 28, 34, 72, 42, 77, 40, 1, 4, 62, 49, 29, 33, 32, 39,
                ],
            ),
            (
                (1 << 70) + 3,
                [
                    7, 90, 20, 95, 60, 55, 31, 57, 15, 77, 58, 69, 82, 78, 32, 30, 61, 73, 62, 1, 54, 18, 63, 3, 97,
                    47, 33, 43, 29, 26, 5, 39, 83, 38, 89, 42, 72, 56, 53, 75, 52, 28, 91, 59, 11, 24, 92, 36, 4, 35,
                    68, 49, 37, 65, 50, 51, 81, 67, 8, 48, 9, 64, 23, 14, 40, 41, 88, 19, 13, 34, 98, 85, 6, 94, 46, 0,
                    84, 66, 86, 76, 99, 87, 17, 79, 45, 44, 16, 22, 93, 21,
                ],
            ),
        ];
        for (seed, want) in cases {
            assert_eq!(rng(seed).choice_without_replacement(100, 90, true), want, "seed {seed}");
        }
        // np.random.default_rng(5).choice(20000, 300, replace=False, shuffle=False)[:5]
        assert_eq!(rng(5).choice_without_replacement(20000, 300, false)[..5], [13215, 15860, 446, 15919, 9238]);
    }

    #[test]
    fn tail_shuffled_choices_are_numpys() {
        // s = np.random.default_rng(5).choice(20000, 500, replace=False): s[:8] and
        // sum(i * v for i, v in enumerate(s)); likewise for choice(20000, 1500, replace=False,
        // shuffle=False) with s[:5].
        let weighted = |s: &[usize]| s.iter().enumerate().map(|(i, v)| i * v).sum::<usize>();
        let s = rng(5).choice_without_replacement(20000, 500, true);
        assert_eq!(s[..8], [18134, 18689, 1322, 2064, 372, 16640, 15627, 1292]);
        assert_eq!(weighted(&s), 1223642047);
        let s = rng(5).choice_without_replacement(20000, 1500, false);
        assert_eq!(s[..5], [7615, 12456, 7636, 4969, 3961]);
        assert_eq!(weighted(&s), 11148021997);
    }
}
