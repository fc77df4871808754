//! The wasm build's allocator: power-of-two size classes, one free list per class, carved from
//! the end of linear memory. No headers, no splitting, no merging.
//!
//! Why not the default (dlmalloc): it is ~7 KB of the shipped wasm, and its free-block merging
//! lets a steady workload creep the heap upward page by page. Here every block keeps its class
//! for ever, so a workload that repeats reaches its peak per class once and then only reuses
//! (SPEC §9: no memory growth after the first 1,000 calls). The price is up to 2× for a block
//! (a 33-byte string takes 64), paid by an SDK whose live data is a few hundred kilobytes.
//!
//! Blocks are naturally aligned (a 64-byte block starts at a multiple of 64), so any alignment
//! up to the block size holds. When the carve point must move up to align a block, the skipped
//! bytes are themselves cut into aligned blocks and put on their free lists; nothing is lost.
//!
//! [`Arena`] holds the logic over a `grow` function, so the host tests drive it over a plain
//! buffer; on wasm32 it is the `#[global_allocator]` over `memory.grow`.

use core::cell::UnsafeCell;

/// The smallest block: a free block holds the next pointer, and 16 bytes keep `u128` aligned.
const MIN_CLASS: u32 = 4;
/// Classes 2^4 .. 2^31.
const CLASSES: usize = 28;
/// A wasm page.
pub const PAGE: usize = 65_536;

/// The free lists and the carve point, over memory that `grow` extends.
pub struct Arena<G> {
    /// Head of each class's free list (0 = empty); the next pointer is the block's first word.
    free: [usize; CLASSES],
    /// Where the next fresh block is cut; `end` is the first byte not yet ours; `base` the
    /// first that is.
    next: usize,
    base: usize,
    end: usize,
    /// Gives `pages` more pages at the current end of memory and returns the address of the first
    /// new byte, or `None` when memory cannot grow.
    grow: G,
}

impl<G: FnMut(usize) -> Option<usize>> Arena<G> {
    /// An arena that owns nothing yet; the first allocation calls `grow`.
    pub const fn new(grow: G) -> Self {
        Arena {
            free: [0; CLASSES],
            next: 0,
            base: 0,
            end: 0,
            grow,
        }
    }

    /// A block of at least `size` bytes aligned to `align` (a power of two), or null.
    pub fn alloc(&mut self, size: usize, align: usize) -> *mut u8 {
        let Some(class) = class_of(size.max(align)) else {
            return core::ptr::null_mut();
        };
        let head = self.free[class];
        if head != 0 {
            // SAFETY: `head` is a free block of this class, which the arena owns; its first
            // word holds the next free block (written by `dealloc` or `keep`).
            self.free[class] = unsafe { (head as *const usize).read() };
            return head as *mut u8;
        }
        self.carve(1 << (class as u32 + MIN_CLASS))
    }

    /// Returns a block that `alloc` gave for this `size` and `align`.
    ///
    /// # Safety
    /// `ptr` came from this arena's `alloc` with the same `size` and `align`, and is not used
    /// after this call.
    pub unsafe fn dealloc(&mut self, ptr: *mut u8, size: usize, align: usize) {
        if let Some(class) = class_of(size.max(align)) {
            self.keep(ptr as usize, class);
        }
    }

    /// Whether a block given for `old` bytes also holds `new` bytes (same class: `realloc` is
    /// then a no-op).
    pub fn same_class(old: usize, new: usize, align: usize) -> bool {
        class_of(old.max(align)) == class_of(new.max(align))
    }

    /// The bytes taken from `grow` so far (what the arena has, free or not).
    pub fn span(&self) -> usize {
        self.end - self.base
    }

    /// Cuts a fresh block of `block` bytes (a power of two) at the carve point.
    fn carve(&mut self, block: usize) -> *mut u8 {
        if self.end == 0 {
            match (self.grow)(0) {
                Some(at) => (self.base, self.next, self.end) = (at, at, at),
                None => return core::ptr::null_mut(),
            }
        }
        let start = (self.next + block - 1) & !(block - 1);
        let Some(stop) = start.checked_add(block) else {
            return core::ptr::null_mut();
        };
        if stop > self.end {
            let pages = (stop - self.end).div_ceil(PAGE);
            match (self.grow)(pages) {
                Some(at) if at == self.end => self.end += pages * PAGE,
                _ => return core::ptr::null_mut(),
            }
        }
        // The bytes skipped to align `start` become free blocks: each step takes the largest
        // block the address is aligned to, which never passes the next multiple of `block`.
        while self.next < start {
            let step = self.next & self.next.wrapping_neg();
            self.keep(self.next, class_of(step).expect("smaller than `block`"));
            self.next += step;
        }
        self.next = stop;
        start as *mut u8
    }

    fn keep(&mut self, at: usize, class: usize) {
        // SAFETY: `at` is a block of this class that nobody uses (freed, or never handed out);
        // blocks are at least 16 bytes and 16-aligned, so a `usize` fits and is aligned.
        unsafe { (at as *mut usize).write(self.free[class]) };
        self.free[class] = at;
    }
}

/// The class index for a request of `size` bytes (already at least its alignment).
fn class_of(size: usize) -> Option<usize> {
    let bits = size
        .max(1 << MIN_CLASS)
        .checked_next_power_of_two()?
        .trailing_zeros();
    let class = (bits - MIN_CLASS) as usize;
    (class < CLASSES).then_some(class)
}

/// `grow` of the global arena.
type Grow = fn(usize) -> Option<usize>;

/// The global allocator of the wasm build (single-threaded: wasm32 without the atomics feature).
pub struct Global(UnsafeCell<Arena<Grow>>);

// SAFETY: wasm32-unknown-unknown without atomics has one thread; nothing else can reach the arena.
unsafe impl Sync for Global {}

impl Global {
    /// The allocator over this module's linear memory.
    #[cfg(target_arch = "wasm32")]
    pub const fn linear_memory() -> Self {
        Global(UnsafeCell::new(Arena::new(memory_grow)))
    }
}

/// `memory.grow`: the address of the first new byte (`grow(0)` is the current end).
#[cfg(target_arch = "wasm32")]
fn memory_grow(pages: usize) -> Option<usize> {
    let before = core::arch::wasm32::memory_grow(0, pages);
    (before != usize::MAX).then_some(before * PAGE)
}

// SAFETY: every method forwards to the arena, which hands out disjoint blocks of at least the
// asked size and alignment, and takes back only what it gave.
unsafe impl core::alloc::GlobalAlloc for Global {
    unsafe fn alloc(&self, layout: core::alloc::Layout) -> *mut u8 {
        (*self.0.get()).alloc(layout.size(), layout.align())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: core::alloc::Layout) {
        (*self.0.get()).dealloc(ptr, layout.size(), layout.align())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: core::alloc::Layout, new: usize) -> *mut u8 {
        let align = layout.align();
        if Arena::<Grow>::same_class(layout.size(), new, align) {
            return ptr;
        }
        let arena = &mut *self.0.get();
        let fresh = arena.alloc(new, align);
        if !fresh.is_null() {
            core::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new));
            arena.dealloc(ptr, layout.size(), align);
        }
        fresh
    }
}
