//! What the store keeps of one table version (the files a sync compares against, the documents
//! the tools list), read from the table once and then brought over this process's own writes,
//! so it is read again only after another process wrote.
//!
//! A write marks what it changed while the cache still is the version the write began from
//! ([`Versioned::wrote`]); when the write ends the cache becomes the version after it
//! ([`Versioned::moved`]), or is dropped when it was another version meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// A value of one table version, and how often it was read from the table.
#[derive(Debug)]
pub struct Versioned<T> {
    slot: Mutex<Option<(u64, Arc<T>)>>,
    loads: AtomicU64,
}

impl<T> Default for Versioned<T> {
    fn default() -> Self {
        Self {
            slot: Mutex::new(None),
            loads: AtomicU64::new(0),
        }
    }
}

impl<T: Clone> Versioned<T> {
    /// What is held for `version`, if that is the version held.
    pub fn get(&self, version: u64) -> Option<Arc<T>> {
        match &*self.slot.lock() {
            Some((held, value)) if *held == version => Some(value.clone()),
            _ => None,
        }
    }

    /// Holds `value`, read from the table at `version`.
    pub fn put(&self, version: u64, value: Arc<T>) {
        *self.slot.lock() = Some((version, value));
    }

    /// Counts one read of the table (kept or not).
    pub fn counted_load(&self) {
        self.loads.fetch_add(1, Ordering::Relaxed);
    }

    /// Times the value was read from the table rather than answered from what is held.
    pub fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }

    /// Applies a write's `change` when what is held is the version it began from (`before`).
    pub fn wrote(&self, before: u64, change: impl FnOnce(&mut T)) {
        if let Some((held, value)) = self.slot.lock().as_mut()
            && *held == before
        {
            change(Arc::make_mut(value));
        }
    }

    /// Makes what is held the version a write ended at (`after`) when it was the one it began
    /// from; drops it otherwise.
    pub fn moved(&self, before: u64, after: u64) {
        let mut slot = self.slot.lock();
        match slot.as_mut() {
            Some((held, _)) if *held == before => *held = after,
            _ => *slot = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_from_the_held_version_is_brought_over_and_any_other_drops_it() {
        let cache: Versioned<Vec<u32>> = Versioned::default();
        assert_eq!(cache.get(1), None);
        cache.put(1, Arc::new(vec![1]));
        assert_eq!(cache.get(1).as_deref(), Some(&vec![1]));
        assert_eq!(cache.get(2), None, "another version is not what is held");

        cache.wrote(1, |v| v.push(2));
        cache.moved(1, 3);
        assert_eq!(cache.get(3).as_deref(), Some(&vec![1, 2]));
        assert_eq!(cache.get(1), None);

        // A write that began from a version not held changes nothing and drops what is held.
        cache.wrote(5, |v| v.push(9));
        cache.moved(5, 6);
        assert_eq!(cache.get(3), None);
        assert_eq!(cache.get(6), None);

        cache.counted_load();
        assert_eq!(cache.loads(), 1);
    }

    #[test]
    fn a_reader_holding_the_value_keeps_its_copy_over_a_write() {
        let cache: Versioned<Vec<u32>> = Versioned::default();
        cache.put(1, Arc::new(vec![1]));
        let held = cache.get(1).unwrap();
        cache.wrote(1, |v| v.push(2));
        assert_eq!(*held, vec![1]);
        cache.moved(1, 2);
        assert_eq!(*cache.get(2).unwrap(), vec![1, 2]);
    }
}
