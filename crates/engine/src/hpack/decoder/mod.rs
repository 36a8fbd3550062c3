//! Decoding header blocks (RFC 7541 sections 3 and 6) with no allocation per block: strings
//! are handed out borrowed from the block, from the tables, or, when Huffman-coded, from two
//! scratch buffers that keep their capacity.

use super::block_reader::{BlockReader, StringLiteral};
use super::dynamic_table::{DynamicTable, NewName};
use super::static_table::STATIC_TABLE;
use super::{huffman, HpackError};

/// What each scratch buffer holds before it must grow: any Huffman-coded name or value up to
/// 640 octets on the wire. A longer one grows it once, and it keeps that capacity.
const SCRATCH_CAPACITY: usize = 1024;

/// A connection's HPACK decoder: its dynamic table and the buffers that Huffman-coded
/// strings are decoded into.
pub struct Decoder {
    table: DynamicTable,
    name: Vec<u8>,
    value: Vec<u8>,
}

/// The kinds of representation, told apart by the first octet's high bits (section 6).
enum Representation {
    Indexed,
    /// With incremental indexing (6-bit index prefix), without indexing or never indexed
    /// (4-bit prefix): the decoder treats the last two alike.
    Literal {
        indexing: bool,
        prefix: u32,
    },
    SizeUpdate,
}

impl Representation {
    fn of(first: u8) -> Representation {
        match first {
            0x80.. => Representation::Indexed,
            0x40.. => Representation::Literal {
                indexing: true,
                prefix: 6,
            },
            0x20.. => Representation::SizeUpdate,
            _ => Representation::Literal {
                indexing: false,
                prefix: 4,
            },
        }
    }
}

/// A literal's name: octets from the block, the name scratch or the static table, or the
/// name of a dynamic table entry (by dynamic index, 0 the newest), which inserting the
/// literal may evict.
enum LiteralName<'a> {
    Octets(&'a [u8]),
    Dynamic(usize),
}

impl Decoder {
    /// A decoder whose dynamic table may grow to `max_table_size` octets (our
    /// SETTINGS_HEADER_TABLE_SIZE; 4096 by default). It allocates here, and only here
    /// unless a Huffman string outgrows the scratch: an arena of twice `max_table_size`.
    pub fn new(max_table_size: usize) -> Decoder {
        Decoder {
            table: DynamicTable::new(max_table_size),
            name: Vec::with_capacity(SCRATCH_CAPACITY),
            value: Vec::with_capacity(SCRATCH_CAPACITY),
        }
    }

    /// Back to the state of a new connection (reuse across connections, no allocation).
    pub fn reset(&mut self) {
        self.table.reset();
    }

    /// How many entries the dynamic table holds.
    #[cfg(test)]
    pub(super) fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Decodes one complete header block (a HEADERS frame's fragment and its CONTINUATIONs,
    /// joined), calling `on_field(name, value)` for each field in order. After an error the
    /// table may be half updated: the connection must end (COMPRESSION_ERROR).
    pub fn decode(
        &mut self,
        block: &[u8],
        mut on_field: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        let mut reader = BlockReader::new(block);
        let mut before_first_field = true;
        while let Some(first) = reader.peek() {
            match Representation::of(first) {
                Representation::SizeUpdate if !before_first_field => {
                    return Err(HpackError::SizeUpdateAfterField);
                }
                Representation::SizeUpdate => self.table.set_max_size(reader.integer(5)?)?,
                Representation::Indexed => {
                    let index = reader.integer(7)?;
                    if index == 0 {
                        return Err(HpackError::IndexZero);
                    }
                    let (name, value) = field(&self.table, index)?;
                    on_field(name, value);
                    before_first_field = false;
                }
                Representation::Literal { indexing, prefix } => {
                    self.literal(&mut reader, indexing, prefix, &mut on_field)?;
                    before_first_field = false;
                }
            }
        }
        Ok(())
    }

    /// A literal field (section 6.2): hands it over, then adds it to the table if `indexing`.
    fn literal(
        &mut self,
        reader: &mut BlockReader<'_>,
        indexing: bool,
        prefix: u32,
        on_field: &mut impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        let Decoder {
            table,
            name: name_scratch,
            value: value_scratch,
        } = self;
        let name = match reader.integer(prefix)? {
            0 => LiteralName::Octets(decoded(reader.string()?, name_scratch)?),
            index => match index.checked_sub(STATIC_TABLE.len() + 1) {
                None => LiteralName::Octets(STATIC_TABLE[index - 1].0),
                Some(dynamic) => {
                    field(table, index)?;
                    LiteralName::Dynamic(dynamic)
                }
            },
        };
        let value = decoded(reader.string()?, value_scratch)?;
        let name_octets = match name {
            LiteralName::Octets(octets) => octets,
            LiteralName::Dynamic(index) => table.get(index).map_or(&[][..], |(name, _)| name),
        };
        on_field(name_octets, value);
        if indexing {
            let new_name = match name {
                LiteralName::Octets(octets) => NewName::Octets(octets),
                LiteralName::Dynamic(index) => NewName::OfEntry(index),
            };
            table.insert(new_name, value);
        }
        Ok(())
    }
}

/// The field at `index` (1 or more) of the static table followed by the dynamic one.
fn field(table: &DynamicTable, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
    if let Some(&(name, value)) = STATIC_TABLE.get(index - 1) {
        return Ok((name, value));
    }
    let entries = STATIC_TABLE.len() + table.len();
    table
        .get(index - 1 - STATIC_TABLE.len())
        .ok_or(HpackError::IndexOutOfRange { index, entries })
}

/// A string literal's octets: raw, borrowed from the block, or Huffman-decoded into `scratch`.
fn decoded<'a>(
    literal: StringLiteral<'a>,
    scratch: &'a mut Vec<u8>,
) -> Result<&'a [u8], HpackError> {
    match literal {
        StringLiteral::Raw(octets) => Ok(octets),
        StringLiteral::Huffman(encoded) => {
            scratch.clear();
            huffman::decode(encoded, scratch)?;
            Ok(scratch)
        }
    }
}

#[cfg(test)]
mod malformed_blocks;
#[cfg(test)]
mod rfc7541_examples;

impl std::fmt::Debug for Decoder {
    /// The table's contents are no one's business but the connection's.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").finish_non_exhaustive()
    }
}
