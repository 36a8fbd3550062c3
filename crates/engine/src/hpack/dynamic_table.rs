//! The decoder's dynamic table (RFC 7541 sections 2.3.2 and 4): the entries' octets in one
//! arena, oldest first, behind a ring of where each entry is. Nothing is allocated after
//! `new`: the arena holds twice the table's limit and is compacted when an insertion would
//! outgrow it, and the ring holds as many entries as the limit allows.

use std::collections::VecDeque;

use super::HpackError;

/// What an entry costs beyond its octets (section 4.1).
pub(super) const ENTRY_OVERHEAD: usize = 32;

/// Where an entry's name and value are in the arena: `name_len` octets at `offset`, then
/// `value_len` octets.
#[derive(Clone, Copy)]
struct Entry {
    offset: usize,
    name_len: usize,
    value_len: usize,
}

/// The name of an entry being inserted: octets from elsewhere, or the name of an entry
/// already in the table (by dynamic index, 0 the newest), which the insertion may evict.
pub(super) enum NewName<'a> {
    Octets(&'a [u8]),
    OfEntry(usize),
}

pub(super) struct DynamicTable {
    /// The entries' octets, oldest first, from `start`; `arena[..start]` was evicted.
    arena: Vec<u8>,
    start: usize,
    /// Oldest at the front.
    entries: VecDeque<Entry>,
    /// The table's size as section 4.1 counts it.
    size: usize,
    /// The maximum size, as the last size update set it.
    max_size: usize,
    /// The SETTINGS_HEADER_TABLE_SIZE we advertise: no size update may go above it.
    limit: usize,
}

impl DynamicTable {
    pub(super) fn new(limit: usize) -> DynamicTable {
        DynamicTable {
            // Grown as entries come (`make_room`), not made at the limit: a held
            // connection keeps what its server's fields take, not 4 KiB twice over.
            arena: Vec::new(),
            start: 0,
            entries: VecDeque::new(),
            size: 0,
            max_size: limit,
            limit,
        }
    }

    /// Empty, at the maximum size a new connection starts with.
    pub(super) fn reset(&mut self) {
        self.clear();
        self.max_size = self.limit;
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg(test)]
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// The entry at dynamic index `index` (0 the newest).
    pub(super) fn get(&self, index: usize) -> Option<(&[u8], &[u8])> {
        let entry = self.entries[self.position(index)?];
        let name_end = entry.offset + entry.name_len;
        let name = &self.arena[entry.offset..name_end];
        Some((name, &self.arena[name_end..name_end + entry.value_len]))
    }

    /// A dynamic table size update (section 6.3): evicts down to `size`.
    pub(super) fn set_max_size(&mut self, size: usize) -> Result<(), HpackError> {
        if size > self.limit {
            let limit = self.limit;
            return Err(HpackError::SizeUpdateOverLimit { size, limit });
        }
        self.max_size = size;
        self.evict_to(size);
        Ok(())
    }

    /// Adds an entry (section 4.4): evicts the oldest until it fits, or empties the table if
    /// it is larger than the table can ever be. A name `OfEntry` an index the table does not
    /// have adds nothing (the decoder checks indexes before it inserts).
    pub(super) fn insert(&mut self, name: NewName<'_>, value: &[u8]) {
        let name_len = match name {
            NewName::Octets(octets) => octets.len(),
            NewName::OfEntry(index) => match self.position(index) {
                Some(position) => self.entries[position].name_len,
                None => return,
            },
        };
        let size = name_len + value.len() + ENTRY_OVERHEAD;
        if size > self.max_size {
            self.clear();
            return;
        }
        // Appended before the eviction, so that a name of an entry about to go stays readable.
        self.make_room(name_len + value.len());
        let offset = self.arena.len();
        match name {
            NewName::Octets(octets) => self.arena.extend_from_slice(octets),
            NewName::OfEntry(index) => {
                let from = self.position(index).map_or(0, |at| self.entries[at].offset);
                self.arena.extend_from_within(from..from + name_len);
            }
        }
        self.arena.extend_from_slice(value);
        self.evict_to(self.max_size - size);
        self.start = self.entries.front().map_or(offset, |oldest| oldest.offset);
        let value_len = value.len();
        self.entries.push_back(Entry {
            offset,
            name_len,
            value_len,
        });
        self.size += size;
    }

    /// Where the entry at dynamic index `index` (0 the newest) is in the ring.
    fn position(&self, index: usize) -> Option<usize> {
        self.entries.len().checked_sub(index.checked_add(1)?)
    }

    /// Evicts the oldest entries until the size is at most `size`.
    fn evict_to(&mut self, size: usize) {
        while self.size > size {
            let Some(oldest) = self.entries.pop_front() else {
                break;
            };
            self.size -= oldest.name_len + oldest.value_len + ENTRY_OVERHEAD;
            self.start = oldest.offset + oldest.name_len + oldest.value_len;
        }
    }

    /// Moves the live octets to the front if `octets` more would outgrow the arena, and
    /// grows it if they still would: to twice what is live and coming, at most twice the
    /// limit (live octets never exceed the limit, nor does one entry's), so that each
    /// octet moves at most once per time it is inserted and the cost stays amortised.
    /// Growth stops at the table's working size, within a connection's first responses.
    fn make_room(&mut self, octets: usize) {
        if self.arena.len() + octets <= self.arena.capacity() {
            return;
        }
        self.arena.copy_within(self.start.., 0);
        self.arena.truncate(self.arena.len() - self.start);
        for entry in &mut self.entries {
            entry.offset -= self.start;
        }
        self.start = 0;
        let needed = self.arena.len() + octets;
        let wanted = (2 * needed).min(2 * self.limit).max(needed);
        self.arena.reserve_exact(wanted - self.arena.len());
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.arena.clear();
        self.start = 0;
        self.size = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as section 4 describes it, with owned entries, newest first.
    struct Model {
        entries: VecDeque<(Vec<u8>, Vec<u8>)>,
        max_size: usize,
    }

    impl Model {
        fn size(&self) -> usize {
            let sizes = self.entries.iter().map(|(n, v)| n.len() + v.len());
            sizes.sum::<usize>() + ENTRY_OVERHEAD * self.entries.len()
        }

        fn insert(&mut self, name: Vec<u8>, value: Vec<u8>) {
            self.entries.push_front((name, value));
            while self.size() > self.max_size {
                self.entries.pop_back();
            }
        }
    }

    fn assert_same(table: &DynamicTable, model: &Model) {
        assert_eq!(table.len(), model.entries.len());
        assert_eq!(table.size(), model.size());
        for (index, (name, value)) in model.entries.iter().enumerate() {
            assert_eq!(
                table.get(index),
                Some((&name[..], &value[..])),
                "entry {index}"
            );
        }
        assert_eq!(table.get(model.entries.len()), None);
    }

    #[test]
    fn the_arena_matches_a_model_and_stops_growing_at_twice_the_limit() {
        let mut table = DynamicTable::new(300);
        let mut model = Model {
            entries: VecDeque::new(),
            max_size: 300,
        };
        let capacity = |t: &DynamicTable| (t.arena.capacity(), t.entries.capacity());
        let mut grown = capacity(&table);
        // A fixed pseudo-random walk: names from table entries (some about to be evicted),
        // entries of every size up to larger than the table, and size updates.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let value = vec![round as u8; (seed % 290) as usize];
            if seed.is_multiple_of(97) {
                let size = (seed >> 8) as usize % 301;
                table.set_max_size(size).unwrap();
                model.max_size = size;
                while model.size() > size {
                    model.entries.pop_back();
                }
            } else if seed.is_multiple_of(3) && !model.entries.is_empty() {
                let index = (seed >> 8) as usize % model.entries.len();
                let name = model.entries[index].0.clone();
                table.insert(NewName::OfEntry(index), &value);
                model.insert(name, value);
            } else {
                let name = vec![b'a' + (round % 26) as u8; (seed >> 16) as usize % 40];
                table.insert(NewName::Octets(&name), &value);
                model.insert(name, value);
            }
            assert_same(&table, &model);
            assert!(
                table.arena.capacity() <= 600,
                "round {round}: {:?}",
                capacity(&table)
            );
            if round == 1_000 {
                grown = capacity(&table);
            }
        }
        assert_eq!(
            capacity(&table),
            grown,
            "grown in the first 1,000 entries, no more"
        );
    }

    #[test]
    fn an_entry_larger_than_the_table_empties_it() {
        let mut table = DynamicTable::new(100);
        table.insert(NewName::Octets(b"a"), b"b");
        table.insert(NewName::Octets(b"name"), &[0; 100 - ENTRY_OVERHEAD - 3]);
        assert_eq!((table.len(), table.size()), (0, 0));
        // Exactly the table's size fits, alone.
        table.insert(NewName::Octets(b"a"), b"b");
        table.insert(NewName::Octets(b"name"), &[0; 100 - ENTRY_OVERHEAD - 4]);
        assert_eq!((table.len(), table.size()), (1, 100));
    }

    #[test]
    fn a_name_from_the_entry_it_evicts_is_kept() {
        // RFC 7541 section 4.4: the new entry may name the entry its insertion evicts.
        let mut table = DynamicTable::new(2 * ENTRY_OVERHEAD + 10);
        table.insert(NewName::Octets(b"custom"), b"1");
        table.insert(NewName::OfEntry(0), b"2222");
        assert_eq!(table.len(), 1);
        assert_eq!(table.get(0), Some((&b"custom"[..], &b"2222"[..])));
    }

    #[test]
    fn size_updates_evict_and_respect_the_limit() {
        let mut table = DynamicTable::new(4096);
        table.insert(NewName::Octets(b"a"), b"b");
        let over = HpackError::SizeUpdateOverLimit {
            size: 4097,
            limit: 4096,
        };
        assert_eq!(table.set_max_size(4097), Err(over));
        assert_eq!(table.set_max_size(0), Ok(()));
        assert_eq!(table.len(), 0);
        table.insert(NewName::Octets(b"a"), b"b");
        assert_eq!(table.len(), 0, "nothing fits a table of size 0");
        assert_eq!(table.set_max_size(4096), Ok(()));
        table.insert(NewName::Octets(b"a"), b"b");
        assert_eq!(table.len(), 1);
        table.reset();
        assert_eq!((table.len(), table.max_size), (0, 4096));
    }
}
