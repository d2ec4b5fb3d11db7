//! What every process built on this library shares: the allocator and its settings, and the size
//! of LanceDB's compute pool, which must be set before the process starts a thread.

/// Every binary built on this library (the server, its tests, the benchmarks) allocates with
/// jemalloc, which returns freed memory to the system where glibc's malloc kept it (see
/// Cargo.toml).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read before `main` (`_RJEM_MALLOC_CONF` in the environment still wins).
///
/// - `dirty_decay_ms:250` (default 10,000): pages freed stay mapped a quarter of a second, not ten,
///   so a sync's buffers are gone before the first searches load the index. A 105,000-chunk first
///   index and its searches peaked at 438-482 MB with the default and 384-403 MB with this, at the
///   same speed; `0` peaked at 300 MB but indexed 25% slower and searched 40% slower.
/// - `muzzy_decay_ms:0`: freed pages go back at once instead of lingering in a second state.
/// - `narenas:4` (default four per core): fewer half-empty arenas; 327-342 MB with the two above
///   (317-322 MB with two arenas).
///   The threads that allocate most (the sync's, LanceDB's pool) each keep a cache, so four arenas
///   are not a lock many threads queue on.
///
/// Measured with `ragdown-bench index --copies 500 --embedder hash` (bench/results/README.md,
/// 2026-12-02).
#[cfg(not(target_env = "msvc"))]
#[allow(unsafe_code)] // jemalloc's documented way to set options at build time; a test reads them back
#[unsafe(export_name = "_rjem_malloc_conf")]
static MALLOC_CONF: MallocConf = MallocConf(c"dirty_decay_ms:250,muzzy_decay_ms:0,narenas:4".as_ptr());

/// A C string jemalloc reads as `const char *malloc_conf`.
#[repr(transparent)]
struct MallocConf(*const std::ffi::c_char);

// SAFETY: it points at a string literal, immutable for the life of the process.
#[allow(unsafe_code)]
unsafe impl Sync for MallocConf {}

/// The LanceDB compute threads to ask for when the environment does not: every core. LanceDB keeps
/// two cores for IO and computes on the rest, which leaves one thread on a 2-core machine and two
/// on a 4-core one for compaction and full-text index builds; folding 105,000 chunks into the
/// full-text index took 5.2 s on one thread and 2.9 s on two (2026-12-02). Searches and writes
/// here read local files, which need no cores held back.
pub fn lance_cpu_threads(set: Option<&std::ffi::OsStr>, cores: usize) -> Option<usize> {
    set.is_none().then_some(cores.max(1))
}

/// Sets `LANCE_CPU_THREADS` from [`lance_cpu_threads`].
///
/// # Safety
///
/// Changes the environment: call it before the process starts any thread (first thing in `main`).
#[allow(unsafe_code)]
pub unsafe fn configure_lance() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(threads) = lance_cpu_threads(std::env::var_os("LANCE_CPU_THREADS").as_deref(), cores) {
        // SAFETY: the caller guarantees no other thread runs yet.
        unsafe { std::env::set_var("LANCE_CPU_THREADS", threads.to_string()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lance_gets_every_core_unless_the_environment_says() {
        assert_eq!(lance_cpu_threads(None, 2), Some(2));
        assert_eq!(lance_cpu_threads(None, 0), Some(1));
        assert_eq!(lance_cpu_threads(Some("3".as_ref()), 16), None);
    }

    /// Reads one of jemalloc's options as it took effect.
    #[cfg(not(target_env = "msvc"))]
    #[allow(unsafe_code)]
    fn jemalloc_option<T: Default>(name: &std::ffi::CStr) -> T {
        let mut value = T::default();
        let mut len = std::mem::size_of::<T>();
        // SAFETY: `value` is `len` writable bytes of the option's type; nothing is written back.
        let rc = unsafe {
            tikv_jemalloc_sys::mallctl(
                name.as_ptr(),
                (&mut value as *mut T).cast(),
                &mut len,
                std::ptr::null_mut(),
                0,
            )
        };
        assert_eq!(rc, 0, "mallctl {name:?}");
        value
    }

    #[cfg(not(target_env = "msvc"))]
    #[test]
    fn jemalloc_runs_with_our_options() {
        if std::env::var_os("_RJEM_MALLOC_CONF").is_some() {
            return; // the environment overrides them on purpose
        }
        assert_eq!(jemalloc_option::<isize>(c"opt.dirty_decay_ms"), 250);
        assert_eq!(jemalloc_option::<isize>(c"opt.muzzy_decay_ms"), 0);
        assert_eq!(jemalloc_option::<u32>(c"opt.narenas"), 4);
    }
}
