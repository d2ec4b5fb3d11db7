//! The hook's per-session memory: which chunks each conversation was already given, per endpoint.
//!
//! One [`HookState`] belongs to each [`crate::engine::Engine`]. A session is keyed by the endpoint
//! (the scope's root-relative prefix: `""` for stdio or the root `/mcp`, `work/` for `/mcp/work`,
//! `work/projects/alpha/` for a subfolder endpoint) and the client's `session_id`, so two endpoints
//! never share what a session was given (a subfolder endpoint is its own scope).

use std::collections::{HashMap, HashSet};

use parking_lot::{Mutex, MutexGuard};

/// Sessions remembered at once; the least recently used is forgotten first.
pub const MAX_SESSIONS: usize = 200;

/// Which chunk ids each session was already given: an LRU of a fixed number of sessions.
#[derive(Debug)]
pub struct SessionMemory {
    capacity: usize,
    /// Key -> (last use, chunk ids given).
    sessions: HashMap<String, (u64, HashSet<String>)>,
    /// Counts uses, so the smallest stamp is the least recently used session.
    clock: u64,
}

impl SessionMemory {
    /// An empty memory of at most `capacity` sessions.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            sessions: HashMap::new(),
            clock: 0,
        }
    }

    /// The key of one endpoint's session.
    pub fn key(endpoint: &str, session_id: &str) -> String {
        format!("{endpoint}\0{session_id}")
    }

    /// Forgets a session.
    pub fn forget(&mut self, key: &str) {
        self.sessions.remove(key);
    }

    /// The chunk ids a session was given, marking it used.
    pub fn seen(&mut self, key: &str) -> Option<&HashSet<String>> {
        self.clock += 1;
        let now = self.clock;
        self.sessions.get_mut(key).map(|(used, seen)| {
            *used = now;
            &*seen
        })
    }

    /// Records chunk ids as given, evicting the least recently used session past the capacity.
    pub fn remember(&mut self, key: &str, ids: impl IntoIterator<Item = String>) {
        self.clock += 1;
        let now = self.clock;
        let (used, seen) = self.sessions.entry(key.to_string()).or_default();
        *used = now;
        seen.extend(ids);
        if self.sessions.len() > self.capacity
            && let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(key, _)| key.clone())
        {
            self.sessions.remove(&oldest);
        }
    }

    /// Sessions held.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// What the hook keeps between calls for one engine.
#[derive(Debug)]
pub struct HookState {
    sessions: Mutex<SessionMemory>,
    /// Floors already warned about, as `(source, value bits)`, so a settings file read on every
    /// call is warned about once per value rather than on every prompt.
    warned_floors: Mutex<HashSet<(String, u32)>>,
}

impl Default for HookState {
    fn default() -> Self {
        Self {
            sessions: Mutex::new(SessionMemory::new(MAX_SESSIONS)),
            warned_floors: Mutex::new(HashSet::new()),
        }
    }
}

impl HookState {
    /// The session memory (the lock does not poison: every state a panic can leave it in is a
    /// valid memory).
    pub fn sessions(&self) -> MutexGuard<'_, SessionMemory> {
        self.sessions.lock()
    }

    /// True the first time a `(source, floor)` pair is seen.
    pub fn first_warning(&self, source: &str, floor: f32) -> bool {
        self.warned_floors.lock().insert((source.to_string(), floor.to_bits()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_forgets_the_least_recently_used_session_past_its_capacity() {
        let mut memory = SessionMemory::new(2);
        memory.remember("a", ["1".to_string()]);
        memory.remember("b", ["2".to_string()]);
        assert!(memory.seen("a").is_some_and(|seen| seen.contains("1")));
        memory.remember("c", ["3".to_string()]);
        assert_eq!(memory.len(), 2);
        assert!(memory.seen("b").is_none(), "b was the least recently used");
        assert!(memory.seen("a").is_some() && memory.seen("c").is_some());
        memory.remember("a", ["4".to_string()]);
        assert_eq!(memory.seen("a").map(HashSet::len), Some(2));
        memory.forget("a");
        assert!(memory.seen("a").is_none());
    }

    #[test]
    fn endpoints_key_the_same_session_id_apart() {
        assert_ne!(SessionMemory::key("work/", "s"), SessionMemory::key("work/sub/", "s"));
        assert_ne!(SessionMemory::key("", "s"), SessionMemory::key("work/", "s"));
    }

    #[test]
    fn a_floor_is_warned_about_once_per_source_and_value() {
        let state = HookState::default();
        assert!(state.first_warning("folder ops", 0.2));
        assert!(!state.first_warning("folder ops", 0.2));
        assert!(state.first_warning("folder ops", 0.3));
        assert!(state.first_warning("saved settings", 0.2));
    }
}
