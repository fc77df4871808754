//! The instance's remembered grants (SPEC §12): `ck.grant` inside a person's gesture, the live
//! list, revoking, and showing them on the Watch panels and to `grants` listeners whenever the
//! engine says they changed.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::Instance;
use crate::core::error::Error;
use crate::web::events::EventKind;
use crate::web::hand::person_gesture;
use crate::web::objects::grant_js;
use crate::web::spec::read_grant_options;
use crate::web::time::now;

impl Instance {
    /// `ck.grant(action, options)`: only inside a person's gesture (see [`person_gesture`]) and
    /// never while the SDK performs an element action, only for a soft action; the grant as a
    /// frozen object.
    pub(crate) fn grant(&self, action: &JsValue, options: &JsValue) -> Result<JsValue, Error> {
        let max = self.engine().config().max_args_bytes;
        let Some(name) = action.as_string() else {
            return Err(Error::InvalidGrant(
                "the action must be given by its name".into(),
            ));
        };
        let options = read_grant_options(options, max)?;
        // The SDK's own element action fires trusted `change`, `input` and `submit` events:
        // a grant made from them would be the agent's (SPEC §4.2).
        let gesture = person_gesture() && !self.acting.get();
        let grant = self.engine_mut().grant(&name, &options, gesture, now())?;
        self.drain();
        Ok(grant_js(&grant))
    }

    /// The live grants, oldest first, as frozen objects in a frozen array.
    pub(crate) fn grants(&self) -> Array {
        let list: Array = self.engine().grants(now()).map(grant_js).collect();
        Object::freeze(&list);
        list
    }

    /// Ends a live grant by id; `true` when it was live.
    pub(crate) fn revoke_grant(&self, id: &str) -> bool {
        let Some(grant) = self.engine().grant_by_str(id, now()) else {
            return false;
        };
        let done = self.engine_mut().revoke_grant(grant, now());
        self.drain();
        done
    }

    /// The live grants changed: the Watch panels show them, `grants` listeners hear them.
    pub(super) fn grants_changed(&self) {
        let grants = self.grants();
        self.watch.show_grants(&grants);
        self.events.emit(EventKind::Grants, &grants);
    }

    /// Shows the live grants on every Watch panel.
    pub(super) fn show_grants(&self) {
        self.watch.show_grants(&self.grants());
    }
}
