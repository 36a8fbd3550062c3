//! The decoder's state machine, built at compile time from the code: a state is a node of
//! the code tree (the bits of a code read so far), and each step reads 4 bits. No code is
//! shorter than 5 bits, so a step completes at most one symbol.

use super::code::{CODES, EOS};

/// The internal nodes of the code tree: one per state. A canonical code of 257 symbols has
/// 256, which the build checks.
const STATES: usize = 256;

/// What one step (4 bits, from one state) does.
#[derive(Clone, Copy)]
pub(super) struct Step {
    /// The state after the 4 bits.
    pub(super) next: u8,
    /// The symbol completed on the way, when `outcome` is `EMIT`.
    pub(super) symbol: u8,
    pub(super) outcome: u8,
}

/// The step completed no symbol.
pub(super) const NONE: u8 = 0;
/// The step completed `symbol`.
pub(super) const EMIT: u8 = 1;
/// The step completed EOS, which a string must not contain.
pub(super) const EOS_FOUND: u8 = 2;

/// Whether a string may end in a state: what its leftover bits are as padding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ending {
    /// No bits left over, or 1 to 7 ones: the most significant bits of EOS.
    Padded,
    /// 8 or more ones: padding longer than 7 bits.
    TooLong,
    /// Left-over bits with a zero among them: not a prefix of EOS.
    NotEos,
}

pub(super) struct Machine {
    pub(super) steps: [[Step; 16]; STATES],
    pub(super) endings: [Ending; STATES],
}

pub(super) static MACHINE: Machine = Machine::build();

/// A child in the code tree: an internal node, a symbol's leaf, or not yet made.
#[derive(Clone, Copy)]
enum Child {
    Node(u8),
    Leaf(u16),
    Missing,
}

impl Machine {
    const fn build() -> Machine {
        let tree = code_tree();
        let mut steps = [[Step {
            next: 0,
            symbol: 0,
            outcome: NONE,
        }; 16]; STATES];
        let mut state = 0;
        while state < STATES {
            let mut nibble = 0;
            while nibble < 16 {
                steps[state][nibble] = step(&tree, state, nibble);
                nibble += 1;
            }
            state += 1;
        }
        Machine {
            steps,
            endings: endings(&tree),
        }
    }
}

/// The code tree as `[zero child, one child]` per internal node; node 0 is the root.
const fn code_tree() -> [[Child; 2]; STATES] {
    let mut tree = [[Child::Missing; 2]; STATES];
    let mut nodes = 1;
    let mut symbol = 0;
    while symbol < CODES.len() {
        let (code, bits) = CODES[symbol];
        let mut node = 0;
        let mut bit = bits;
        while bit > 1 {
            bit -= 1;
            let side = ((code >> bit) & 1) as usize;
            node = match tree[node][side] {
                Child::Node(next) => next as usize,
                Child::Missing => {
                    assert!(nodes < STATES, "the Huffman code is not canonical");
                    tree[node][side] = Child::Node(nodes as u8);
                    nodes += 1;
                    nodes - 1
                }
                Child::Leaf(_) => panic!("a Huffman code is a prefix of another"),
            };
        }
        let side = (code & 1) as usize;
        assert!(
            matches!(tree[node][side], Child::Missing),
            "two symbols share a code"
        );
        tree[node][side] = Child::Leaf(symbol as u16);
        symbol += 1;
    }
    assert!(nodes == STATES, "the Huffman code is not complete");
    tree
}

/// Reads the 4 bits of `nibble`, most significant first, from `state`.
const fn step(tree: &[[Child; 2]; STATES], state: usize, nibble: usize) -> Step {
    let mut out = Step {
        next: 0,
        symbol: 0,
        outcome: NONE,
    };
    let mut node = state;
    let mut bit = 4;
    while bit > 0 {
        bit -= 1;
        match tree[node][(nibble >> bit) & 1] {
            Child::Node(next) => node = next as usize,
            Child::Leaf(symbol) => {
                if symbol as usize == EOS {
                    out.outcome = EOS_FOUND;
                } else if out.outcome == NONE {
                    out.outcome = EMIT;
                    out.symbol = symbol as u8;
                }
                node = 0;
            }
            Child::Missing => panic!("the Huffman code is not complete"),
        }
    }
    out.next = node as u8;
    out
}

/// The root and the first 7 nodes down the all-ones path end a string well; the rest of that
/// path is padding too long, and every other node holds a zero bit.
const fn endings(tree: &[[Child; 2]; STATES]) -> [Ending; STATES] {
    let mut endings = [Ending::NotEos; STATES];
    endings[0] = Ending::Padded;
    let mut node = 0;
    let mut ones = 0;
    while let Child::Node(next) = tree[node][1] {
        node = next as usize;
        ones += 1;
        endings[node] = if ones <= 7 {
            Ending::Padded
        } else {
            Ending::TooLong
        };
    }
    endings
}
