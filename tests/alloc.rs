//! The wasm allocator's arena, driven on the host over a plain buffer: blocks never overlap,
//! keep their alignment and contents, and a repeated workload stops taking memory after its
//! first round (SPEC §9's "no growth", which this allocator is there to keep).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use coworkkit::arena::{Arena, PAGE};
use proptest::prelude::*;

/// `pages` of zeroed memory starting at a page boundary, and a `grow` over it.
fn memory(pages: usize) -> (Vec<u8>, impl FnMut(usize) -> Option<usize>) {
    let buffer = vec![0u8; (pages + 1) * PAGE];
    let base = (buffer.as_ptr() as usize).next_multiple_of(PAGE);
    let mut used = 0;
    let grow = move |more: usize| {
        (used + more <= pages).then(|| {
            used += more;
            base + (used - more) * PAGE
        })
    };
    (buffer, grow)
}

#[derive(Debug, Clone)]
enum Op {
    Alloc { size: usize, align: usize },
    Free(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (prop_oneof![4 => 1usize..64, 3 => 64usize..4096, 1 => 4096usize..200_000],
              (0u32..7).prop_map(|k| 1usize << k))
            .prop_map(|(size, align)| Op::Alloc { size, align }),
        2 => any::<usize>().prop_map(Op::Free),
    ]
}

/// The blocks in use: by address (to check overlaps) and in the order they were made (so
/// `Op::Free(k)` frees the same block in every round, wherever the arena put it).
#[derive(Default)]
struct Live {
    by_address: BTreeMap<usize, (usize, usize, u8)>,
    in_order: Vec<usize>,
}

/// Runs `ops`, checking every block; the blocks it leaves stay in `live`.
fn run<G: FnMut(usize) -> Option<usize>>(arena: &mut Arena<G>, ops: &[Op], live: &mut Live) {
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Alloc { size, align } => {
                let ptr = arena.alloc(size, align) as usize;
                assert_ne!(ptr, 0, "out of memory at op {i}");
                assert_eq!(ptr % align, 0, "misaligned");
                if let Some((&before, &(len, _, _))) = live.by_address.range(..ptr).next_back() {
                    assert!(before + len <= ptr, "overlaps the block before");
                }
                if let Some((&after, _)) = live.by_address.range(ptr..).next() {
                    assert!(ptr + size <= after, "overlaps the block after");
                }
                let fill = i as u8;
                // SAFETY: the arena just gave `size` bytes at `ptr`, inside the test's buffer.
                unsafe { std::ptr::write_bytes(ptr as *mut u8, fill, size) };
                live.by_address.insert(ptr, (size, align, fill));
                live.in_order.push(ptr);
            }
            Op::Free(pick) if !live.in_order.is_empty() => {
                let ptr = live.in_order.remove(pick % live.in_order.len());
                let (size, align, fill) = live.by_address.remove(&ptr).unwrap();
                // SAFETY: as above; the block is still ours until `dealloc`.
                let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, size) };
                assert!(
                    bytes.iter().all(|&b| b == fill),
                    "another block wrote into this one"
                );
                // SAFETY: `ptr` came from this arena with this size and align.
                unsafe { arena.dealloc(ptr as *mut u8, size, align) };
            }
            Op::Free(_) => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn blocks_are_aligned_disjoint_and_keep_their_contents(ops in prop::collection::vec(op(), 1..400)) {
        let (_buffer, grow) = memory(1024);
        let mut arena = Arena::new(grow);
        run(&mut arena, &ops, &mut Live::default());
    }

    #[test]
    fn a_repeated_workload_takes_no_more_memory_after_its_first_round(
        ops in prop::collection::vec(op(), 1..200),
    ) {
        let (_buffer, grow) = memory(1024);
        let mut arena = Arena::new(grow);
        let mut live = Live::default();
        let round = |arena: &mut Arena<_>, live: &mut Live| {
            run(arena, &ops, live);
            // Free what the round left, as a settled call frees its snapshot.
            live.in_order.clear();
            for (ptr, (size, align, _)) in std::mem::take(&mut live.by_address) {
                // SAFETY: every live block came from this arena with this size and align.
                unsafe { arena.dealloc(ptr as *mut u8, size, align) };
            }
        };
        round(&mut arena, &mut live);
        let after_first = arena.span();
        for _ in 0..20 {
            round(&mut arena, &mut live);
        }
        prop_assert_eq!(arena.span(), after_first);
    }
}

#[test]
fn memory_that_cannot_grow_gives_null_and_the_arena_still_works() {
    let (_buffer, grow) = memory(2);
    let mut arena = Arena::new(grow);
    assert!(arena.alloc(3 * PAGE, 8).is_null());
    let small = arena.alloc(100, 8);
    assert!(!small.is_null());
    // SAFETY: `small` came from this arena for 100 bytes, align 8.
    unsafe { arena.dealloc(small, 100, 8) };
    assert_eq!(
        arena.alloc(120, 8),
        small,
        "a freed block of the class is reused"
    );
}
