//! Each loop's drawing of requests: which shape (a smooth weighted rotation, so that over
//! every round of the weights' sum each shape is sent exactly its weight's times), and
//! its values (the sequence number, and numbers from a generator seeded per loop).

use super::braced::Source;
use super::compiled::Drawn;
use super::Vary;

/// One loop's draws.
#[derive(Debug, Clone)]
pub struct Drawer {
    rng: fastrand::Rng,
    /// Requests drawn so far.
    count: u64,
    /// Sequence number `k` of this loop is `k * stride + offset`: distinct across loops
    /// and shards.
    stride: u64,
    offset: u64,
    /// The rotation's running weights, one per shape.
    current: Vec<i64>,
}

/// Where a loop sits in the load: its number among its process's loops, and the
/// process's shard.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    pub shard: u64,
    pub shards: u64,
    pub loop_index: u64,
    pub loops: u64,
}

impl Drawer {
    /// The draws of the loop at `place` for `vary`: its own seed, made from the load's,
    /// its shard and its number.
    pub fn new(vary: &Vary, place: Place) -> Drawer {
        let seed = mix(mix(mix(vary.seed) ^ place.shard) ^ (place.loop_index << 32));
        let shards = place.shards.max(1);
        Drawer {
            rng: fastrand::Rng::with_seed(seed),
            count: 0,
            // Request k of loop l in shard s is number (k * loops + l) * shards + s: the
            // shards' numbers never meet, whatever each one's number of loops.
            stride: place.loops.max(1) * shards,
            offset: place.loop_index * shards + place.shard,
            current: vec![0; vary.shapes.len()],
        }
    }

    /// The next request's shape and values.
    pub fn draw(&mut self, vary: &Vary) -> Drawn {
        let shape = self.rotate(vary);
        let seq = self.count * self.stride + self.offset;
        self.count += 1;
        let mut drawn = Drawn {
            shape: shape as u16,
            ..Drawn::default()
        };
        for (value, source) in drawn.values.iter_mut().zip(&vary.shapes[shape].sources) {
            *value = match source {
                Source::Seq { start } => start.saturating_add(seq),
                Source::Rand { lo, hi } => self.rng.u64(*lo..=*hi),
                Source::List(items) => self.rng.usize(..items.len()) as u64,
            };
        }
        drawn
    }

    /// Smooth weighted round-robin (nginx's upstream choice): every shape gains its
    /// weight, the one ahead is chosen and pays the total.
    fn rotate(&mut self, vary: &Vary) -> usize {
        if self.current.len() == 1 {
            return 0;
        }
        let mut best = 0;
        for (i, shape) in vary.shapes.iter().enumerate() {
            self.current[i] += shape.weight as i64;
            if self.current[i] > self.current[best] {
                best = i;
            }
        }
        self.current[best] -= vary.total_weight as i64;
        best
    }
}

/// SplitMix64's finaliser: nearby seeds (shard 0, 1, 2) give unrelated generators.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
