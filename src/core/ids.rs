//! The small shared types that the engine, the records and the engine's maps use: the ids of
//! registrations, calls and proposals, the host's entropy, and the keyed hasher of the maps
//! from ids an agent chooses.

use std::fmt;
use std::hash::BuildHasher;

use siphasher::sip::SipHasher13;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub(crate) u64);

        impl $name {
            /// The raw number (unique per engine among ids of this kind).
            pub fn as_u64(self) -> u64 {
                self.0
            }
        }
    };
}

id_type!(
    /// A registration's identity; registering the same name again later yields a new id.
    ActionId
);
id_type!(
    /// One per `invoke`; every ticket eventually gets exactly one `Effect::Answer`.
    Ticket
);
id_type!(
    /// One per admitted call (a call that passed arrival checks).
    CallRef
);
id_type!(
    /// A hard proposal. Its string form (`Display`, e.g. `ckp_7`) is what `pending()` shows
    /// and `ck.cancel(id)` takes.
    ProposalId
);

id_type!(
    /// A remembered soft grant (SPEC §12). Its string form (`Display`, e.g. `ckg_9`) is what
    /// `ck.grants()` and a record's `grant` show and `ck.revokeGrant(id)` takes.
    GrantId
);

const PROPOSAL_PREFIX: &str = "ckp_";
const GRANT_PREFIX: &str = "ckg_";

impl fmt::Display for ProposalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PROPOSAL_PREFIX}{}", self.0)
    }
}

impl ProposalId {
    /// Reads the public string form back (whether or not such a proposal exists). Only
    /// `ckp_` and decimal digits: no sign, no spaces.
    pub fn parse(s: &str) -> Option<ProposalId> {
        parse_numbered(s, PROPOSAL_PREFIX).map(ProposalId)
    }
}

impl fmt::Display for GrantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{GRANT_PREFIX}{}", self.0)
    }
}

impl GrantId {
    /// Reads the public string form back (whether or not such a grant exists): `ckg_` and
    /// decimal digits only.
    pub fn parse(s: &str) -> Option<GrantId> {
        parse_numbered(s, GRANT_PREFIX).map(GrantId)
    }
}

/// The number of `prefix` + decimal digits (no sign, no spaces).
fn parse_numbered(s: &str, prefix: &str) -> Option<u64> {
    let digits = s.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What a call id the engine makes starts with: `ck_` and 128 random bits in hex.
pub const CALL_ID_PREFIX: &str = "ck_";

/// Randomness from the host (the platform CSPRNG in the web layer, a seeded PRNG in tests).
pub trait Entropy {
    /// Fills `buf` with random bytes.
    fn fill(&mut self, buf: &mut [u8]);
}

/// `prefix` + 128 random bits as 32 lowercase hex digits: call ids (`ck_`), soft tokens
/// (`ckt_`) and session ids (no prefix).
pub fn random_id(entropy: &mut dyn Entropy, prefix: &str) -> String {
    let mut bytes = [0u8; 16];
    entropy.fill(&mut bytes);
    hex_id(prefix, &bytes)
}

/// `prefix` + `bytes` as lowercase hex, two digits a byte. (A call id is made on every
/// `invoke` without one: the digits are looked up rather than formatted.)
pub fn hex_id(prefix: &str, bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(prefix.len() + 2 * bytes.len());
    out.push_str(prefix);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The hasher of the engine's maps from ids the agent chooses (`callId`s, tokens): SipHash-1-3
/// keyed with 128 bits from the engine's entropy.
///
/// Keyed per engine because the agent chooses the ids: with known keys it could work out
/// offline which ids collide and make every lookup walk them all. std's `RandomState` would do
/// this on most targets, but on wasm32-unknown-unknown it has no OS to ask and its keys are
/// fixed.
#[derive(Clone, Copy, Debug)]
pub struct IdHasher {
    keys: (u64, u64),
}

impl IdHasher {
    /// Draws fresh keys.
    pub fn from_entropy(entropy: &mut dyn Entropy) -> Self {
        let mut bytes = [0u8; 16];
        entropy.fill(&mut bytes);
        let (a, b) = bytes.split_at(8);
        let word = |half: &[u8]| u64::from_le_bytes(half.try_into().unwrap_or_default());
        IdHasher {
            keys: (word(a), word(b)),
        }
    }
}

impl BuildHasher for IdHasher {
    type Hasher = SipHasher13;

    fn build_hasher(&self) -> SipHasher13 {
        SipHasher13::new_with_keys(self.keys.0, self.keys.1)
    }
}
