//! The engine's memory of calls by the ids an agent chooses (SPEC §3.2): where every `callId`,
//! alias and soft token points — at a live call or at a settled one — and the last
//! [`REMEMBERED_CALLS`] settled calls, so that a re-sent call gets its first answer instead of
//! a second run.
//!
//! A settled call is known by its settle sequence number: the `n`th call to settle is
//! `Known::Settled(n)`, and it is forgotten, ids and all, once [`REMEMBERED_CALLS`] newer ones
//! have settled.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use crate::core::ids::{CallRef, IdHasher};
use crate::core::record::Outcome;
use crate::core::value::Value;

/// How many settled calls are remembered for idempotency (SPEC §3.2).
pub const REMEMBERED_CALLS: usize = 1024;

/// Extra `callId`s (from confirming calls or token replays) kept per call; more still get the
/// outcome but are not remembered.
const MAX_ALIASES: usize = 8;

/// A map from ids the agent chooses (`callId`s, tokens) to calls. Keyed per engine (see
/// [`IdHasher`]), because the agent chooses the keys.
type IdMap = HashMap<String, Known, IdHasher>;

/// Where a `callId`, alias or token points: a live call, or a remembered one by its settle
/// sequence number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Known {
    Live(CallRef),
    Settled(u64),
}

/// A settled call, kept for idempotency. Its `callId` is its outcome's.
pub(super) struct Remembered<R> {
    pub(super) aliases: Vec<String>,
    pub(super) token: Option<String>,
    pub(super) name: String,
    pub(super) args: Rc<Value>,
    pub(super) outcome: Rc<Outcome<R>>,
}

impl<R> Remembered<R> {
    /// Its `callId` and aliases: what the map of call ids has of it (its token is in the map
    /// of tokens).
    fn ids(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.outcome.call_id).chain(&self.aliases)
    }
}

/// The ids of live and settled calls, and the settled calls themselves.
pub(super) struct CallMemory<R> {
    /// The last settled calls, oldest first; the one with settle sequence number `s` sits at
    /// `s - base`.
    settled: VecDeque<Remembered<R>>,
    base: u64,
    /// Every `callId` and alias of live and remembered calls.
    call_ids: IdMap,
    /// Outstanding and used soft tokens of live and remembered calls.
    tokens: IdMap,
}

impl<R> CallMemory<R> {
    pub(super) fn new(hasher: IdHasher) -> Self {
        CallMemory {
            // Reserved up front: the memory fills within the first thousand calls and stays
            // full, so wasm memory reaches its working size at once instead of stepping up on
            // the way (SPEC §9 bounds its growth).
            settled: VecDeque::with_capacity(REMEMBERED_CALLS + 1),
            base: 0,
            call_ids: IdMap::with_capacity_and_hasher(2 * REMEMBERED_CALLS, hasher),
            tokens: IdMap::with_hasher(hasher),
        }
    }

    /// The keyed hasher of the id maps, for comparing args an agent chose
    /// ([`Value::canonical_eq_keyed`]).
    pub(super) fn hasher(&self) -> IdHasher {
        *self.call_ids.hasher()
    }

    /// The call this `callId` or alias names.
    pub(super) fn call_id(&self, id: &str) -> Option<Known> {
        self.call_ids.get(id).copied()
    }

    /// The call this soft token was issued to.
    pub(super) fn token(&self, token: &str) -> Option<Known> {
        self.tokens.get(token).copied()
    }

    /// A new live call's `callId` (checked unknown on arrival) names it.
    pub(super) fn add_call_id(&mut self, id: String, call: CallRef) {
        self.call_ids.insert(id, Known::Live(call));
    }

    /// A fresh soft token names the live call it was issued to.
    pub(super) fn add_token(&mut self, token: String, call: CallRef) {
        self.tokens.insert(token, Known::Live(call));
    }

    /// `alias` also names `known`, unless the id already names a call: that one keeps it.
    /// (The caller noted the alias on the call first, with [`note_alias`].)
    pub(super) fn link_alias(&mut self, alias: String, known: Known) {
        self.call_ids.entry(alias).or_insert(known);
    }

    /// Notes `alias` on the settled call `seq` and links it; nothing if that call is
    /// forgotten or the alias is not noted (see [`note_alias`]).
    pub(super) fn alias_settled(&mut self, seq: u64, alias: String) {
        let Some(m) = self.settled_mut(seq) else {
            return;
        };
        if note_alias(&mut m.aliases, &m.outcome.call_id, &alias) {
            self.link_alias(alias, Known::Settled(seq));
        }
    }

    /// The remembered call with settle sequence number `seq`, if not yet forgotten.
    pub(super) fn settled(&self, seq: u64) -> Option<&Remembered<R>> {
        let index = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        self.settled.get(index)
    }

    fn settled_mut(&mut self, seq: u64) -> Option<&mut Remembered<R>> {
        let index = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        self.settled.get_mut(index)
    }

    /// Keeps a call that just settled: its ids and token now point at the memory, and the
    /// oldest memory beyond [`REMEMBERED_CALLS`] is forgotten with its ids.
    pub(super) fn remember(&mut self, call: CallRef, memory: Remembered<R>) {
        let seq = self.base + self.settled.len() as u64;
        self.repoint(&memory, Known::Live(call), Some(Known::Settled(seq)));
        self.settled.push_back(memory);
        while self.settled.len() > REMEMBERED_CALLS {
            let Some(old) = self.settled.pop_front() else {
                break;
            };
            let oldest = Known::Settled(self.base);
            self.base += 1;
            self.repoint(&old, oldest, None);
        }
    }

    /// Each id of `memory` (its `callId` and aliases, its token) that points at `from` now
    /// points at `to`, or is dropped when `to` is `None`. Ids that point elsewhere (an alias
    /// another call held first) are left alone.
    fn repoint(&mut self, memory: &Remembered<R>, from: Known, to: Option<Known>) {
        for id in memory.ids() {
            repoint(&mut self.call_ids, id, from, to);
        }
        if let Some(token) = &memory.token {
            repoint(&mut self.tokens, token, from, to);
        }
    }
}

/// Adds `alias` to a call's `aliases` unless it is the call's own `call_id`, is already there,
/// or the call has [`MAX_ALIASES`]. True when added: then the caller links it.
pub(super) fn note_alias(aliases: &mut Vec<String>, call_id: &str, alias: &str) -> bool {
    if call_id == alias || aliases.len() >= MAX_ALIASES || aliases.iter().any(|a| a == alias) {
        return false;
    }
    aliases.push(alias.to_owned());
    true
}

/// If `map` points `id` at `from`, it now points at `to`, or drops it when `to` is `None`.
fn repoint(map: &mut IdMap, id: &str, from: Known, to: Option<Known>) {
    match to {
        Some(to) => {
            if let Some(slot) = map.get_mut(id) {
                if *slot == from {
                    *slot = to;
                }
            }
        }
        None => {
            // Taken out, and put back (its own key, no copy) in the rare case that it points
            // elsewhere: one hash of the id for the common case.
            if let Some((key, known)) = map.remove_entry(id) {
                if known != from {
                    map.insert(key, known);
                }
            }
        }
    }
}
