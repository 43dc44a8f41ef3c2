//! The allocator every binary of the workspace uses (`regdesc`,
//! `regdesc-cc`, the benches), set up in one place.
//!
//! A binary says [`global_allocator!`] once at its crate root. That makes
//! mimalloc the global allocator and, on Linux, sets three of its options
//! before its first arena is reserved:
//!
//! - **No purging by time.** By default mimalloc hands freed memory back
//!   to the system 10 ms after it is freed. A run of these tools is short
//!   and reuses what it frees (the evaluator's scratch becomes the register
//!   bank; each compiler pass frees the machine code the next one
//!   rebuilds), and each page handed back must be faulted in and zeroed
//!   again when reused: on LLVM's AMDGPU that was most of a cold
//!   `regdesc dump`'s system time. The delay is set longer than any run
//!   rather than to "never", so that a binary can still hand memory back
//!   at a moment it chooses, with [`release_freed_memory`].
//! - **Transparent huge pages** (`madvise`, the Linux default mode): the
//!   records of a full target take 200–500 MB, and faulting them in 4 KiB
//!   at a time was most of the system time (on LLVM 14's AMDGPU.td,
//!   `records` spent 0.93 s in the kernel with 4 KiB pages and 0.02 s with
//!   huge pages). A 100k-instruction function's machine code and
//!   liveness are about 100 MB, walked pass after pass: with 2 MiB pages
//!   the TLB covers it, and the back-end pipeline takes about 10 % less
//!   at that size (`bench/pipeline.sh`). Where huge pages are off, the
//!   request is ignored.
//!
//! - **Arenas committed as they are used**, not all at once. mimalloc
//!   reserves a 1 GiB arena and, by default on Linux, commits it whole;
//!   with huge pages asked for, every first touch then faults in and
//!   zeroes a whole 2 MiB page, wherever in the arena it lands. Committed
//!   piece by piece, a run touches less: on LLVM 14's `Target.td`,
//!   `records` ran with 0.10–0.16 s of system time and a 71–77 MB peak
//!   committed eagerly, against 0.03–0.05 s and 59–67 MB (measured right
//!   after an `llvm-tblgen` run, as the benches interleave them); on the
//!   full targets the system time fell by a half to three quarters.
//!
//! A compiler working through one large function is the other case:
//! [`global_allocator!`]`(whole_arenas)` commits arenas whole instead (the
//! back end's `regdesc-cc` and its pipeline benchmark). Committed piece by
//! piece, mimalloc's memory got no huge pages at all here (the kernel's
//! `AnonHugePages` for the pipeline benchmark's 100k run: 0 of 420 MB
//! resident, against 416 MB committed whole), and a 100k-instruction
//! function's machine code, liveness and interference are walked pass
//! after pass through 4 KiB pages the TLB cannot cover. Committed whole, the pipeline
//! benchmark's 100k function compiles 6 % faster (685 -> 646 ms), at the
//! cost of about 0.3 ms of page zeroing for a small compile.
//!
//! mimalloc's own environment variables (`MIMALLOC_PURGE_DELAY`,
//! `MIMALLOC_ALLOW_LARGE_OS_PAGES`, `MIMALLOC_ARENA_EAGER_COMMIT`) still
//! win over these defaults, so that the other setting can be measured
//! without a rebuild.
//!
//! All must be set before mimalloc reserves its first arena, which the
//! Rust runtime's first allocation does before `main`; the macro places
//! [`configure`] in an ELF constructor section that runs before the
//! default-priority constructors (mimalloc's own initialization among
//! them).

// The `mimalloc` crate links mimalloc in; its own `MiMalloc` always takes
// the aligned entry points, which cost about twice the plain ones' work
// on the evaluator's millions of small values (on LLVM's `Target.td`,
// 1.16 million allocations took 49 M instructions in
// `mi_heap_malloc_aligned`). [`Allocator`] calls the plain ones wherever
// they give the alignment asked for.
use mimalloc as _;

unsafe extern "C" {
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, newsize: usize) -> *mut std::ffi::c_void;
    fn mi_malloc_aligned(size: usize, alignment: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc_aligned(size: usize, alignment: usize) -> *mut std::ffi::c_void;
    fn mi_realloc_aligned(
        p: *mut std::ffi::c_void,
        newsize: usize,
        alignment: usize,
    ) -> *mut std::ffi::c_void;
    fn mi_free(p: *mut std::ffi::c_void);
}

/// The alignment every block of mimalloc's plain `mi_malloc` has: its size
/// classes are multiples of the word size, laid out from word-aligned page
/// starts.
const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc as the global allocator, through its plain entry points when
/// the alignment allows (see the note above).
pub struct Allocator;

// SAFETY: every call forwards to mimalloc, which returns blocks of at least
// the requested size, aligned to `PLAIN_ALIGN` from the plain entry points
// (used only when `layout.align() <= PLAIN_ALIGN`) and to `layout.align()`
// from the aligned ones; `mi_free` frees blocks of either kind.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            unsafe { mi_malloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            unsafe { mi_zalloc_aligned(layout.size(), layout.align()).cast() }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        unsafe { mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            unsafe { mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            unsafe { mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast() }
        }
    }
}

// From mimalloc (linked in by the `mimalloc` crate): `mi_option_t` is a C
// enum.
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

// From the C library: reads the environment without allocating (this runs
// before the allocator is set up).
unsafe extern "C" {
    fn getenv(name: *const std::ffi::c_char) -> *const std::ffi::c_char;
}

/// Whether the environment sets `name` (mimalloc then reads it itself).
fn env_set(name: &std::ffi::CStr) -> bool {
    // SAFETY: `name` is NUL-terminated; nothing else touches the
    // environment this early (no other thread exists yet).
    !unsafe { getenv(name.as_ptr()) }.is_null()
}

/// `mi_option_allow_large_os_pages` in mimalloc v2's `mimalloc.h` (6).
const MI_OPTION_ALLOW_LARGE_OS_PAGES: std::ffi::c_int = 6;

/// `mi_option_arena_eager_commit` in mimalloc v2's `mimalloc.h` (4).
const MI_OPTION_ARENA_EAGER_COMMIT: std::ffi::c_int = 4;

/// `mi_option_purge_delay` in mimalloc v2's `mimalloc.h` (the option after
/// `mi_option_eager_commit_delay`, 14).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// The purge delay: an hour, longer than any run, so that nothing is handed
/// back by time but [`release_freed_memory`] can force it (mimalloc's
/// "never", -1, schedules nothing to force).
const PURGE_DELAY_MS: std::ffi::c_long = 3_600_000;

// From mimalloc: collects the calling thread's heap and abandoned
// segments; with `force`, purges now what is scheduled to be purged.
unsafe extern "C" {
    fn mi_collect(force: bool);
}

/// Hands memory freed so far back to the system now.
///
/// For a moment when much has been freed that this thread will not reuse
/// soon: `regdesc` calls it each time a file has been evaluated, as the
/// parse threads build syntax trees in their own heaps ahead of the
/// evaluator and the evaluator frees them. On LLVM 14's ARM.td that took
/// `records`' peak from about 104 to 90 MB at no measurable cost in time.
/// Only meaningful in a binary whose global allocator is set up by
/// [`global_allocator!`].
pub fn release_freed_memory() {
    // SAFETY: a plain call into the allocator, safe from any thread.
    unsafe { mi_collect(true) }
}

/// Hands memory back to the system as soon as it is freed, from now on,
/// unless the environment sets `MIMALLOC_PURGE_DELAY`.
///
/// For a run that does not reuse what it frees: `regdesc records` frees
/// each statement's syntax tree and the values made while resolving as it
/// goes, and keeps the records to the end, where its peak is. Returning
/// freed pages at once took 2–5 % off the peak of LLVM's full targets
/// (Target.td 23.5 -> 22.3 MiB, AArch64 72.3 -> 70.6, RISCV 101 -> 95) for
/// up to 0.04 s of system time. The register bank reuses what the
/// evaluator frees, so `dump` and `tblgen -gen-register-info` keep the
/// default.
pub fn return_freed_memory_at_once() {
    if !env_set(c"MIMALLOC_PURGE_DELAY") {
        // SAFETY: a plain integer option; mimalloc reads it each time it
        // schedules a purge.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
    }
}

/// Sets mimalloc's options (see the crate doc). Called from the ELF
/// constructor [`global_allocator!`] places; calling it later has no
/// effect on arenas already reserved.
pub extern "C" fn configure() {
    configure_with(false);
}

/// [`configure`], with arenas committed whole (huge pages in practice):
/// for `global_allocator!(whole_arenas)`.
pub extern "C" fn configure_whole_arenas() {
    configure_with(true);
}

fn configure_with(whole_arenas: bool) {
    // SAFETY: plain integer arguments, and it runs before any other thread
    // exists (mimalloc's options are not thread-safe to set).
    // mimalloc's own environment variables still win, so that a run can
    // measure the other setting without a rebuild.
    unsafe {
        if !env_set(c"MIMALLOC_PURGE_DELAY") {
            mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
        if !env_set(c"MIMALLOC_ALLOW_LARGE_OS_PAGES") && !env_set(c"MIMALLOC_LARGE_OS_PAGES") {
            mi_option_set(MI_OPTION_ALLOW_LARGE_OS_PAGES, 1);
        }
        if !env_set(c"MIMALLOC_ARENA_EAGER_COMMIT") {
            mi_option_set(
                MI_OPTION_ARENA_EAGER_COMMIT,
                std::ffi::c_long::from(whole_arenas),
            );
        }
    }
}

/// Makes mimalloc the binary's global allocator, configured by
/// [`configure`] before its first allocation (with `whole_arenas`, by
/// [`configure_whole_arenas`]). Use once, at a binary's crate root.
#[macro_export]
macro_rules! global_allocator {
    (whole_arenas) => {
        $crate::global_allocator!(@with $crate::configure_whole_arenas);
    };
    () => {
        $crate::global_allocator!(@with $crate::configure);
    };
    (@with $configure:path) => {
        #[global_allocator]
        static GLOBAL: $crate::Allocator = $crate::Allocator;

        // In the binary itself, so the linker keeps it.
        #[cfg(target_os = "linux")]
        #[used]
        #[unsafe(link_section = ".init_array.00200")]
        static CONFIGURE_ALLOCATOR: extern "C" fn() = $configure;
    };
}
