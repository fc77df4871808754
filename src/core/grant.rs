//! Remembered soft grants (SPEC §12): a person says once, with a click in the app, "the
//! assistant may archive threads for the next 30 minutes", and matching soft calls fire without
//! asking until the grant ends.
//!
//! A grant is created only by the app, through the engine's
//! [`grant`](super::engine::Engine::grant), which the host calls only with the answer to "is a
//! person's gesture under way?" (transient user activation); nothing an agent sends reaches it.
//! It names a soft action and may narrow the calls it covers with `match`, a partial argument
//! object: a call matches when its arguments have each of the match's keys with a JSON value
//! equal to the match's ([`Value::canonical_eq`]'s equality). It ends at its expiry, when its
//! `maxUses` are spent, when it is revoked, and when the instance is disposed; nothing extends
//! it.

use super::error::Error;
use super::ids::{GrantId, IdHasher};
use super::value::Value;

/// A grant's lifetime when the app gives none: 30 minutes.
pub const DEFAULT_TTL_MS: f64 = 30.0 * 60.0 * 1000.0;

/// The longest lifetime a grant may have: 24 hours.
pub const MAX_TTL_MS: f64 = 24.0 * 60.0 * 60.0 * 1000.0;

/// `ck.grant(action, options)`'s options as the host read them, each `None` when absent.
/// They are checked by [`GrantTerms::from_options`]: the host only reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GrantOptions {
    /// `ttlMs` (NaN when it was not a number).
    pub ttl_ms: Option<f64>,
    /// `maxUses` (NaN when it was not a number).
    pub max_uses: Option<f64>,
    /// `match`, read as JSON data (`Err` when it was not plain JSON data).
    pub match_args: Option<Result<Value, Error>>,
}

/// What a grant allows, once its options were checked.
#[derive(Clone, Debug, PartialEq)]
pub struct GrantTerms {
    /// How long it lives, in ms.
    pub ttl_ms: f64,
    /// How many calls it may let through; `None`: any number until it expires.
    pub max_uses: Option<u32>,
    /// The keys a call's args must have, each with exactly this value; empty: any args.
    pub match_args: Vec<(String, Value)>,
}

impl GrantTerms {
    /// Checks the options: `ttlMs` a number of ms above 0 and at most [`MAX_TTL_MS`] (absent:
    /// [`DEFAULT_TTL_MS`]); `maxUses` a whole number from 1 to 2^32 − 1 (absent: no limit);
    /// `match` a plain object of JSON values (absent: any args). Anything else is
    /// [`Error::InvalidGrant`] saying which.
    pub fn from_options(options: &GrantOptions) -> Result<GrantTerms, Error> {
        let ttl_ms = options.ttl_ms.unwrap_or(DEFAULT_TTL_MS);
        if !(ttl_ms > 0.0 && ttl_ms <= MAX_TTL_MS) {
            return Err(Error::InvalidGrant(
                "ttlMs must be a number of milliseconds above 0 and at most 86400000 (24 hours)"
                    .into(),
            ));
        }
        let max_uses = match options.max_uses {
            None => None,
            Some(n) if n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&n) => {
                Some(n as u32)
            }
            Some(_) => {
                return Err(Error::InvalidGrant(
                    "maxUses must be a whole number of at least 1".into(),
                ))
            }
        };
        let match_args =
            match &options.match_args {
                None => Vec::new(),
                Some(Ok(Value::Object(fields))) => fields.clone(),
                Some(_) => return Err(Error::InvalidGrant(
                    "match must be a plain object of JSON values (the arguments a call must have)"
                        .into(),
                )),
            };
        Ok(GrantTerms {
            ttl_ms,
            max_uses,
            match_args,
        })
    }
}

/// A live grant.
#[derive(Clone, Debug, PartialEq)]
pub struct Grant {
    /// Its id (`ckg_<n>`).
    pub id: GrantId,
    /// The soft action it covers, by name.
    pub action: String,
    /// When the app created it, epoch ms.
    pub created_at: f64,
    /// When it ends, epoch ms (`created_at` + `ttlMs`).
    pub expires_at: f64,
    /// How many calls it may let through in all; `None`: no limit.
    pub max_uses: Option<u32>,
    /// How many calls it let through so far.
    pub uses: u32,
    /// The args a call must have (see the module docs); empty: any.
    pub match_args: Vec<(String, Value)>,
}

impl Grant {
    /// Does a call of `action` with `args` fall under this grant?
    fn covers(&self, action: &str, args: &Value, hasher: &IdHasher) -> bool {
        self.action == action
            && self.match_args.iter().all(|(key, wanted)| {
                args.get(key)
                    .is_some_and(|given| given.canonical_eq_keyed(wanted, hasher))
            })
    }
}

/// The live grants of one engine, oldest first.
#[derive(Debug, Default)]
pub struct Grants {
    list: Vec<Grant>,
}

impl Grants {
    /// Adds a grant the engine made.
    pub(crate) fn add(&mut self, grant: Grant) {
        self.list.push(grant);
    }

    /// The grants still live at `now`, oldest first.
    pub fn live(&self, now: f64) -> impl Iterator<Item = &Grant> {
        self.list.iter().filter(move |g| g.expires_at > now)
    }

    /// Lets one call of `action` with `args` through on the oldest live grant that covers it:
    /// counts the use (a grant whose uses are spent ends here) and returns its id.
    pub(crate) fn spend(
        &mut self,
        action: &str,
        args: &Value,
        now: f64,
        hasher: &IdHasher,
    ) -> Option<GrantId> {
        let at = self
            .list
            .iter()
            .position(|g| g.expires_at > now && g.covers(action, args, hasher))?;
        let grant = &mut self.list[at];
        grant.uses += 1;
        let id = grant.id;
        if grant.max_uses.is_some_and(|max| grant.uses >= max) {
            self.list.remove(at);
        }
        Some(id)
    }

    /// Ends a grant; false when it is not live.
    pub(crate) fn revoke(&mut self, id: GrantId) -> bool {
        let before = self.list.len();
        self.list.retain(|g| g.id != id);
        self.list.len() != before
    }

    /// Ends the grants whose expiry is at or before `now`; true when one ended.
    pub(crate) fn expire(&mut self, now: f64) -> bool {
        let before = self.list.len();
        self.list.retain(|g| g.expires_at > now);
        self.list.len() != before
    }

    /// Ends every grant; true when there was one.
    pub(crate) fn clear(&mut self) -> bool {
        let had = !self.list.is_empty();
        self.list.clear();
        had
    }

    /// The earliest expiry of a grant.
    pub(crate) fn next_expiry(&self) -> Option<f64> {
        self.list
            .iter()
            .map(|g| g.expires_at)
            .min_by(f64::total_cmp)
    }
}
