//! The index: the LanceDB store, its `meta.json`, diff sync and the file watcher.

pub mod meta;
pub mod primary;
pub mod store;
pub mod sync;
pub mod watch;
