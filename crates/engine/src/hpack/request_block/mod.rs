//! The request's header block, encoded once per connection (RFC 7541 section 6.2.1): the
//! first request sends its fields as literals with incremental indexing, every later one
//! as indexed fields (a few octets). When the peer's table is too small for them, fields
//! go as literals without indexing instead, and when the peer shrinks its table the next
//! block starts with the dynamic table size update RFC 7541 section 4.2 requires.
//!
//! Exact by construction: the entries the first block inserts fit the peer's table
//! together, so none is evicted while they are referred to; if the table shrinks below
//! them after the first block, later blocks stop referring to any (and never index again
//! on that connection).

mod fields;

use super::dynamic_table::ENTRY_OVERHEAD;
use super::{huffman, integer, static_table};

/// SETTINGS_HEADER_TABLE_SIZE until the peer's SETTINGS say otherwise (RFC 9113 section
/// 6.5.2): the size of the peer's table when a connection starts.
const DEFAULT_TABLE_SIZE: usize = 4096;

/// Octets kept free before each block for a size update to put in front of it. The table
/// only ever shrinks from 4096, so an update is at most 4095: 3 octets.
const UPDATE_ROOM: usize = 3;

/// The request's fields as one connection sends them, and what that connection's peer
/// allows its table to hold. Make one per connection slot and [`reset`](Self::reset) it
/// for each new connection: nothing is allocated after `new`.
#[derive(Clone)]
pub struct RequestBlock {
    fields: Vec<(Vec<u8>, Vec<u8>)>,
    /// Each block after `UPDATE_ROOM` octets, where a size update may be written.
    first: Vec<u8>,
    next: Vec<u8>,
    /// The table size the blocks were planned for: the first block's entries fit in it.
    budget: usize,
    /// What the first block's entries take in the peer's table (section 4.1 sizes).
    indexed_size: usize,
    /// The peer's table's maximum size as of the last block sent.
    table_size: usize,
    /// The size update the next block must start with: the lowest the peer's setting went
    /// since the last block, when it went under `table_size`.
    owed_update: Option<usize>,
    first_sent: bool,
}

/// How a field is sent.
#[derive(Clone, Copy)]
enum Form {
    /// The static table has the whole field: its index, in every block.
    Static(usize),
    /// Inserted by the first block, then referred to by its dynamic index.
    Indexed,
    /// A literal without indexing, in every block.
    Literal,
}

impl RequestBlock {
    /// `fields` are the request's pseudo-headers and headers, in any order: they are sent
    /// pseudo-headers first (:method :scheme :path :authority), then the regular fields in
    /// their order, names in lowercase, without connection-specific fields (connection,
    /// keep-alive, proxy-connection, transfer-encoding, upgrade; `te` unless "trailers").
    pub fn new(fields: &[(&[u8], &[u8])]) -> RequestBlock {
        let fields = fields::http2_fields(fields);
        // The longest a block can be: every field a literal with its name written out,
        // each integer at most 5 octets (any length under 2^28).
        let longest = fields
            .iter()
            .map(|(n, v)| 12 + n.len() + v.len())
            .sum::<usize>();
        let mut block = RequestBlock {
            fields,
            first: Vec::with_capacity(UPDATE_ROOM + longest),
            next: Vec::with_capacity(UPDATE_ROOM + longest),
            budget: DEFAULT_TABLE_SIZE,
            indexed_size: 0,
            table_size: DEFAULT_TABLE_SIZE,
            owed_update: None,
            first_sent: false,
        };
        block.encode();
        block
    }

    /// Back to the state of a new connection (no allocation).
    pub fn reset(&mut self) {
        self.table_size = DEFAULT_TABLE_SIZE;
        self.owed_update = None;
        self.first_sent = false;
        if self.budget != DEFAULT_TABLE_SIZE {
            self.budget = DEFAULT_TABLE_SIZE;
            self.encode();
        }
    }

    /// The block for the connection's first request, without any size update.
    pub fn first(&self) -> &[u8] {
        &self.first[UPDATE_ROOM..]
    }

    /// The block for every later request, without any size update.
    pub fn next(&self) -> &[u8] {
        &self.next[UPDATE_ROOM..]
    }

    /// The block to send now, on the connection's next HEADERS: [`first`](Self::first) the
    /// first time, then [`next`](Self::next), preceded by the size update owed since
    /// [`peer_table_size`](Self::peer_table_size) lowered the table. Call it once per
    /// request, in the order the HEADERS frames are sent: the peer decodes them in order.
    pub fn block(&mut self) -> &[u8] {
        let update = self.owed_update.take();
        let block = if self.first_sent {
            &mut self.next
        } else {
            &mut self.first
        };
        self.first_sent = true;
        let Some(size) = update else {
            return &block[UPDATE_ROOM..];
        };
        self.table_size = size;
        let start = UPDATE_ROOM - integer::encoded_len(size, 5);
        integer::encode_into(size, 5, 0x20, &mut block[start..UPDATE_ROOM]);
        &block[start..]
    }

    /// The peer's SETTINGS_HEADER_TABLE_SIZE changed to `size` (before or after the first
    /// request). A size under the table's current size is owed as a size update at the
    /// start of the next block, and the table stays that small (a larger setting later is
    /// a limit, not a change: we keep using less). If the first block's entries no longer
    /// fit, the blocks fall back to literals without indexing. Call it when the peer's
    /// SETTINGS frame is read (settings apply on receipt, RFC 9113 section 6.5.3).
    pub fn peer_table_size(&mut self, size: usize) {
        let current = self.owed_update.unwrap_or(self.table_size);
        if size >= current {
            return;
        }
        self.owed_update = Some(size);
        if !self.first_sent {
            self.budget = size;
            self.encode();
        } else if size < self.indexed_size {
            self.budget = 0;
            self.encode();
        }
    }

    /// How each field is sent under `budget`, in order: the fields that fit are indexed,
    /// in order, while the ones before them leave room.
    fn forms(&self) -> impl Iterator<Item = Form> + '_ {
        let mut left = self.budget;
        self.fields.iter().map(move |(name, value)| {
            if let Some(index) = static_table::index_of_field(name, value) {
                return Form::Static(index);
            }
            let size = name.len() + value.len() + ENTRY_OVERHEAD;
            if size > left {
                return Form::Literal;
            }
            left -= size;
            Form::Indexed
        })
    }

    /// Writes both blocks for the current budget, each after its room for a size update.
    fn encode(&mut self) {
        let inserted = self
            .forms()
            .filter(|form| matches!(form, Form::Indexed))
            .count();
        let (mut first, mut next) = (
            std::mem::take(&mut self.first),
            std::mem::take(&mut self.next),
        );
        for block in [&mut first, &mut next] {
            block.clear();
            block.resize(UPDATE_ROOM, 0);
        }
        let (mut indexed, mut indexed_size) = (0, 0);
        for ((name, value), form) in self.fields.iter().zip(self.forms()) {
            match form {
                Form::Static(index) => {
                    integer::encode(index, 7, 0x80, &mut first);
                    integer::encode(index, 7, 0x80, &mut next);
                }
                Form::Indexed => {
                    literal(name, value, Indexing::Incremental, &mut first);
                    let index = static_table::STATIC_TABLE.len() + inserted - indexed;
                    integer::encode(index, 7, 0x80, &mut next);
                    indexed += 1;
                    indexed_size += name.len() + value.len() + ENTRY_OVERHEAD;
                }
                Form::Literal => {
                    literal(name, value, Indexing::None, &mut first);
                    literal(name, value, Indexing::None, &mut next);
                }
            }
        }
        (self.first, self.next, self.indexed_size) = (first, next, indexed_size);
    }
}

/// Whether a literal is added to the peer's table.
#[derive(Clone, Copy)]
enum Indexing {
    /// With incremental indexing (section 6.2.1): `01` and a 6-bit name index.
    Incremental,
    /// Without indexing (section 6.2.2): `0000` and a 4-bit name index.
    None,
}

/// Appends `name: value` as a literal without indexing (a value that changes with every
/// request: indexing it would only churn the peer's table), no allocation when `out` has
/// room for `12 + name.len() + value.len()` octets.
pub fn literal_field(name: &[u8], value: &[u8], out: &mut Vec<u8>) {
    literal(name, value, Indexing::None, out);
}

/// Appends a literal field, naming it by the static table's index when it has the name.
fn literal(name: &[u8], value: &[u8], indexing: Indexing, out: &mut Vec<u8>) {
    let (prefix, flags) = match indexing {
        Indexing::Incremental => (6, 0x40),
        Indexing::None => (4, 0x00),
    };
    match static_table::index_of_name(name) {
        Some(index) => integer::encode(index, prefix, flags, out),
        None => {
            out.push(flags);
            string(name, out);
        }
    }
    string(value, out);
}

/// Appends a string literal, Huffman-coded when that is shorter (h2load does the same).
fn string(text: &[u8], out: &mut Vec<u8>) {
    let huffman_len = huffman::encoded_len(text);
    if huffman_len < text.len() {
        integer::encode(huffman_len, 7, 0x80, out);
        huffman::encode(text, out);
    } else {
        integer::encode(text.len(), 7, 0x00, out);
        out.extend_from_slice(text);
    }
}

#[cfg(test)]
mod tests;

impl std::fmt::Debug for RequestBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestBlock")
            .field("first", &self.first().len())
            .field("next", &self.next().len())
            .finish_non_exhaustive()
    }
}
