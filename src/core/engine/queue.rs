//! The hard-card queue (SPEC §4): hard proposals wait in arrival order, and only the front
//! one's card is visible, as "1 of N". The queue knows the order; the engine turns each
//! [`CardChange`] it reports into the card effects ([`Effect::ShowCard`],
//! [`Effect::UpdateCard`], [`Effect::CloseCard`]).
//!
//! [`Effect::ShowCard`]: super::Effect::ShowCard
//! [`Effect::UpdateCard`]: super::Effect::UpdateCard
//! [`Effect::CloseCard`]: super::Effect::CloseCard

use std::collections::VecDeque;

use crate::core::ids::{CallRef, ProposalId};

/// Waiting hard proposals, oldest first: the front one is the visible card.
#[derive(Default)]
pub(super) struct CardQueue {
    waiting: VecDeque<(CallRef, ProposalId)>,
}

/// What the visible card must do after the queue changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum CardChange {
    /// The queue was empty: this call's card shows.
    Show(CallRef),
    /// The visible card stays; its total ("1 of N") is now `total`.
    Count { proposal: ProposalId, total: usize },
    /// The visible card's proposal left the queue: its card closes, and the next one's shows
    /// if one waits.
    Replace {
        closed: ProposalId,
        next: Option<CallRef>,
    },
}

impl CardQueue {
    /// How many proposals wait, the visible one included.
    pub(super) fn len(&self) -> usize {
        self.waiting.len()
    }

    /// The calls in queue order, the visible one first.
    pub(super) fn calls(&self) -> impl Iterator<Item = CallRef> + '_ {
        self.waiting.iter().map(|(call, _)| *call)
    }

    /// The visible card's call.
    pub(super) fn visible(&self) -> Option<CallRef> {
        self.waiting.front().map(|(call, _)| *call)
    }

    /// Where `proposal` waits (0: visible) and its call; `None` when it does not wait.
    pub(super) fn find(&self, proposal: ProposalId) -> Option<(usize, CallRef)> {
        self.waiting
            .iter()
            .position(|(_, p)| *p == proposal)
            .map(|index| (index, self.waiting[index].0))
    }

    /// A new proposal joins the end of the queue.
    pub(super) fn push(&mut self, call: CallRef, proposal: ProposalId) -> CardChange {
        self.waiting.push_back((call, proposal));
        if self.waiting.len() == 1 {
            CardChange::Show(call)
        } else {
            self.count()
        }
    }

    /// Takes `call`'s proposal out of the queue; `None` if it was not waiting.
    pub(super) fn remove(&mut self, call: CallRef) -> Option<CardChange> {
        let index = self.waiting.iter().position(|(c, _)| *c == call)?;
        let (_, proposal) = self.waiting.remove(index)?;
        Some(if index == 0 {
            CardChange::Replace {
                closed: proposal,
                next: self.visible(),
            }
        } else {
            self.count()
        })
    }

    /// The visible card's new total; only called while the queue is not empty.
    fn count(&self) -> CardChange {
        let (_, proposal) = self.waiting[0];
        CardChange::Count {
            proposal,
            total: self.waiting.len(),
        }
    }
}
