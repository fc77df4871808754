//! `Coworkkit`, the class a web app constructs: the whole JavaScript surface of SPEC §2, each
//! method a thin door onto the [`Instance`].
//!
//! [`Instance`]: super::instance::Instance

use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::Element;

use super::convert::{get, set};
use super::events::{call_listener, EventKind};
use super::instance::Instance;
use super::objects::proposal_js;
use super::spec::read_cancel_options;
use crate::core::error::Error;
use crate::core::interop::control_from_mcp_hints;

#[wasm_bindgen]
extern "C" {
    /// The constructor's options object, typed as `CoworkkitOptions` in the `.d.ts` (so the
    /// parameter reads `options?: CoworkkitOptions | null`).
    #[wasm_bindgen(typescript_type = "CoworkkitOptions")]
    pub type OptionsObject;
}

/// The SDK instance: actions, the call engine, the card and the events of one page.
#[wasm_bindgen]
pub struct Coworkkit {
    inner: Rc<Instance>,
}

/// A frozen `{ dispose }` handle (and more methods, when given) for something mounted.
fn handle(methods: &[(&'static str, JsValue)]) -> JsValue {
    let handle = Object::new();
    for (name, method) in methods {
        set(&handle, name, method);
    }
    Object::freeze(&handle).into()
}

#[wasm_bindgen]
impl Coworkkit {
    /// Creates an instance. Every option is optional; see `CoworkkitOptions`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<OptionsObject>) -> Result<Coworkkit, JsValue> {
        let inner = Instance::new(options.map(Into::into))?;
        Ok(Coworkkit { inner })
    }

    /// The session id carried by every record of this instance.
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.inner.engine().session_id().to_owned()
    }

    /// Registers an action; returns a handle whose `dispose()` unregisters it.
    #[wasm_bindgen(js_name = defineAction, unchecked_return_type = "ActionHandle")]
    pub fn define_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ActionSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (name, dispose) = self.inner.define(&spec)?;
        Ok(handle(&[("name", name.into()), ("dispose", dispose)]))
    }

    /// Registers an action for a component's lifetime; returns its disposer.
    #[wasm_bindgen(js_name = useAction, unchecked_return_type = "() => void")]
    pub fn use_action(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ActionSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (_, dispose) = self.inner.define(&spec)?;
        Ok(dispose)
    }

    /// The agent's door (SPEC §3). Never throws: bad input is a `rejected` outcome.
    #[wasm_bindgen(unchecked_return_type = "Promise<Outcome>")]
    pub fn invoke(
        &self,
        #[wasm_bindgen(unchecked_param_type = "InvokeCall")] call: JsValue,
    ) -> Promise {
        self.inner.invoke(&call)
    }

    /// The hard proposals waiting, the visible card's first.
    #[wasm_bindgen(unchecked_return_type = "Proposal[]")]
    pub fn pending(&self) -> Array {
        let list = self.inner.engine().pending();
        list.iter().map(proposal_js).collect()
    }

    /// Cancels a waiting proposal by id; `true` when it was waiting. The app may always cancel,
    /// never confirm. `options.reason` relays the person's words (SPEC §12): the agent's
    /// outcome is then `declined`, quoting them, and the record keeps them as `note`.
    pub fn cancel(
        &self,
        id: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "CancelOptions | null")] options: Option<
            JsValue,
        >,
    ) -> bool {
        let (reason, _) = read_cancel_options(&options.unwrap_or(JsValue::UNDEFINED));
        self.inner.cancel(id, reason)
    }

    /// Cancels every waiting hard proposal, or only `options.action`'s, each with its own
    /// outcome and record (and `options.reason` as for `cancel`); returns how many. Never
    /// confirms anything.
    #[wasm_bindgen(js_name = cancelAll)]
    pub fn cancel_all(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "CancelAllOptions | null")] options: Option<
            JsValue,
        >,
    ) -> u32 {
        let (reason, action) = read_cancel_options(&options.unwrap_or(JsValue::UNDEFINED));
        self.inner.cancel_all(action, reason) as u32
    }

    /// Remembers a person's "yes, for a while" to a soft action (SPEC §12): while the grant
    /// lives, a call it covers fires at once, its record naming the grant. Only during a
    /// person's gesture (else throws `needs_user_activation`), only for a soft action (else
    /// `invalid_grant`, as for bad options). Returns the grant.
    #[wasm_bindgen(unchecked_return_type = "Grant")]
    pub fn grant(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] action: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "GrantOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        Ok(self.inner.grant(&action, &options)?)
    }

    /// The live grants, oldest first.
    #[wasm_bindgen(unchecked_return_type = "readonly Grant[]")]
    pub fn grants(&self) -> Array {
        self.inner.grants()
    }

    /// Ends a live grant; `true` when it was live.
    #[wasm_bindgen(js_name = revokeGrant)]
    pub fn revoke_grant(&self, id: &str) -> bool {
        self.inner.revoke_grant(id)
    }

    /// Subscribes to `"proposal" | "resolved" | "record" | "handmode" | "grants"`; returns the unsubscribe
    /// function. A `proposal` listener also receives, in a microtask, every proposal already
    /// waiting.
    #[wasm_bindgen(unchecked_return_type = "() => void")]
    pub fn on(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CoworkkitEvent")] event: &str,
        #[wasm_bindgen(
            unchecked_param_type = "(payload: Proposal & Resolution & ActionRecord & boolean & readonly Grant[]) => void"
        )]
        listener: Function,
    ) -> Result<JsValue, JsValue> {
        let kind = EventKind::parse(event).ok_or_else(|| {
            Error::InvalidSpec(format!(
                "unknown event \"{event}\": use proposal, resolved, record, handmode or grants"
            ))
        })?;
        let inner = &self.inner;
        let (id, unsubscribe) = inner.subscribe(kind, listener.clone());
        if kind == EventKind::Proposal {
            let waiting = self.pending();
            if waiting.length() > 0 {
                let weak = inner.weak();
                wasm_bindgen_futures::spawn_local(async move {
                    let Some(inner) = weak.upgrade() else { return };
                    // Only if still subscribed by the time the microtask runs.
                    if inner.is_subscribed(id) {
                        for p in waiting.iter() {
                            call_listener(&listener, &p);
                        }
                    }
                });
            }
        }
        Ok(unsubscribe)
    }

    /// Settles everything pending as cancelled (`disposed`), aborts `ctx.signal`, removes the
    /// SDK's DOM. Later calls answer `cancelled` at once (a re-sent `callId` it still remembers gets
    /// its own outcome).
    pub fn dispose(&self) {
        self.inner.dispose();
    }

    /// The manifest of every registered action for an LLM: `"json" | "openai" |
    /// "openai-responses" | "anthropic" | "mcp" | "ag-ui"` (SPEC §7, §14). Fresh plain objects
    /// each time; an unknown format throws `invalid_spec`.
    // Typed in `types.rs` instead (per format, per call shape): a signature emitted here would
    // come first among the overloads and always win, typing every manifest as any format's.
    #[wasm_bindgen(skip_typescript)]
    pub fn tools(&self, format: JsValue) -> Result<JsValue, JsValue> {
        Ok(self.inner.tools(&format)?)
    }

    /// Runs a tool call (OpenAI Chat, OpenAI Responses, Anthropic, AI SDK or MCP; AG-UI with
    /// `{ format: "ag-ui" }`) through `invoke` and answers in the matching tool-result shape,
    /// the outcome as compact JSON content. The provider's call id is the `callId`, so a re-sent
    /// call never runs twice. Never rejects: a malformed call is a `rejected` outcome in the
    /// closest shape. Options other than `{ format: "ag-ui" }` throw `invalid_spec`.
    #[wasm_bindgen(js_name = handleToolCall, skip_typescript)]
    pub fn handle_tool_call(&self, call: JsValue, options: JsValue) -> Result<Promise, JsValue> {
        Ok(self.inner.handle_tool_call(&call, &options)?)
    }

    /// Arms Hand mode (element actions may run). Only during transient user activation — inside
    /// a click or key handler — else throws an `Error` with code `needs_user_activation`.
    #[wasm_bindgen(js_name = armHandMode)]
    pub fn arm_hand_mode(&self) -> Result<(), JsValue> {
        Ok(self.inner.arm_hand_mode()?)
    }

    /// Disarms Hand mode; element actions settle `needs_hand_mode` again.
    #[wasm_bindgen(js_name = disarmHandMode)]
    pub fn disarm_hand_mode(&self) {
        self.inner.set_hand_mode(false);
    }

    /// Whether Hand mode is armed.
    #[wasm_bindgen(getter, js_name = handMode)]
    pub fn hand_mode(&self) -> bool {
        self.inner.engine().hand_mode()
    }

    /// Draws the SDK's Hand mode switch into `element` (default: the `container` option, else
    /// `document.body`); returns a handle whose `dispose()` removes it.
    #[wasm_bindgen(js_name = mountHandModeSwitch, unchecked_return_type = "MountHandle")]
    pub fn mount_hand_mode_switch(&self, element: Option<Element>) -> Result<JsValue, JsValue> {
        let dispose = self.inner.mount_switch(element)?;
        Ok(handle(&[("dispose", dispose)]))
    }

    /// Draws a Watch panel into `element` (default: the `container` option, else
    /// `document.body`). The handle's `dispose()` removes it; `jsonLines()` returns what "Copy
    /// JSON Lines" copies.
    #[wasm_bindgen(js_name = mountWatchPanel, unchecked_return_type = "WatchPanelHandle")]
    pub fn mount_watch_panel(&self, element: Option<Element>) -> Result<JsValue, JsValue> {
        let (dispose, json_lines) = self.inner.mount_panel(element)?;
        Ok(handle(&[("dispose", dispose), ("jsonLines", json_lines)]))
    }

    /// Hands every action (or `options.actions`) to the browser's own agent as a WebMCP tool
    /// (SPEC §7.2), gated as through `handleToolCall`; actions defined later follow, disposed
    /// ones leave. Throws `model_context_unavailable` without a model context. The handle's
    /// `ready` resolves once every registration made now was accepted (else rejects with
    /// `model_context_refused`); its `dispose()` removes every tool it registered.
    #[wasm_bindgen(js_name = exposeToModelContext, unchecked_return_type = "ModelContextExposure")]
    pub fn expose_to_model_context(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "ExposeOptions | null")] options: Option<
            JsValue,
        >,
    ) -> Result<JsValue, JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let (ready, dispose) = self.inner.expose(&options)?;
        Ok(handle(&[("ready", ready.into()), ("dispose", dispose)]))
    }
}

/// MCP tool annotations → control level (SPEC §7), with MCP's defaults (`readOnlyHint: false`,
/// `destructiveHint: true`): read-only → `"open"`; destructive or unannotated → `"hard"`;
/// otherwise `"soft"`.
#[wasm_bindgen(js_name = controlFromMcpAnnotations, unchecked_return_type = "Control")]
pub fn control_from_mcp(
    #[wasm_bindgen(unchecked_param_type = "McpToolAnnotations | null | undefined")]
    annotations: JsValue,
) -> String {
    let hint = |key| {
        if annotations.is_object() {
            get(&annotations, key).as_bool()
        } else {
            None
        }
    };
    control_from_mcp_hints(hint("readOnlyHint"), hint("destructiveHint"))
        .as_str()
        .into()
}
