//! Browser tests of the `Coworkkit` class through its Rust API, in headless Chromium.
#![cfg(target_arch = "wasm32")]

use coworkkit::web::api::Coworkkit;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o.into()
}

fn get(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &k.into()).unwrap()
}

#[wasm_bindgen_test]
async fn open_action_fires_and_returns_the_result_with_one_record() {
    let records = js_sys::Array::new();
    let sink = Function::new_with_args("r", "this.push(r)").bind0(&records);
    let ck = Coworkkit::new(Some(obj(&[("onActionRecord", sink.into())]).into())).unwrap();
    let run = Function::new_with_args("args", "return args.a + args.b");
    ck.define_action(obj(&[
        ("name", "add".into()),
        ("description", "Adds two numbers.".into()),
        ("run", run.into()),
    ]))
    .unwrap();
    let args = obj(&[("a", 2.into()), ("b", 3.into())]);
    let call = obj(&[
        ("name", "add".into()),
        ("args", args),
        ("callId", "c1".into()),
    ]);
    let outcome = JsFuture::from(ck.invoke(call)).await.unwrap();
    assert_eq!(get(&outcome, "gate"), "fired");
    assert_eq!(get(&outcome, "ok"), true);
    assert_eq!(get(&outcome, "result"), 5);
    assert_eq!(get(&outcome, "callId"), "c1");
    assert_eq!(records.length(), 1);
    let record = records.get(0);
    assert_eq!(get(&record, "gate"), "fired");
    assert_eq!(get(&record, "controlSource"), "default");
    assert_eq!(
        get(&record, "assurance"),
        "none",
        "an open call: nothing decided it"
    );
    assert_eq!(get(&get(&record, "outcome"), "status"), "ok");
    ck.dispose();
}

#[wasm_bindgen_test]
async fn bad_agent_input_is_a_rejected_outcome_not_a_throw() {
    let ck = Coworkkit::new(None).unwrap();
    let outcome = JsFuture::from(ck.invoke(JsValue::from(42))).await.unwrap();
    assert_eq!(get(&outcome, "gate"), "rejected");
    assert_eq!(get(&get(&outcome, "error"), "code"), "unknown_action");
    ck.dispose();
}

#[wasm_bindgen_test]
fn a_bad_spec_throws_an_error_with_a_code() {
    let ck = Coworkkit::new(None).unwrap();
    let err = ck
        .define_action(obj(&[
            ("name", "9lives".into()),
            ("description", "x".into()),
        ]))
        .unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "code"), "invalid_spec");
    ck.dispose();
}

#[wasm_bindgen_test]
async fn a_call_id_with_a_lone_surrogate_reads_as_u_fffd_everywhere() {
    let records = js_sys::Array::new();
    let sink = Function::new_with_args("r", "this.push(r)").bind0(&records);
    let ck = Coworkkit::new(Some(obj(&[("onActionRecord", sink.into())]).into())).unwrap();
    let seen = js_sys::Array::new();
    let run = Function::new_with_args("args, ctx", "this.push(ctx.callId)").bind0(&seen);
    ck.define_action(obj(&[
        ("name", "noop".into()),
        ("description", "Does nothing.".into()),
        ("run", run.into()),
    ]))
    .unwrap();
    let lone = JsValue::from(js_sys::JsString::from_char_code1(0xD800));
    let call = || obj(&[("name", "noop".into()), ("callId", lone.clone())]);
    let first = JsFuture::from(ck.invoke(call())).await.unwrap();
    // The re-sent call is answered from the engine's memory, not from the first call's text.
    let again = JsFuture::from(ck.invoke(call())).await.unwrap();
    for id in [
        get(&first, "callId"),
        get(&again, "callId"),
        get(&records.get(0), "callId"),
        seen.get(0),
    ] {
        assert_eq!(id, "\u{FFFD}");
    }
    assert_eq!((records.length(), seen.length()), (1, 1));
    ck.dispose();
}

/// In the browser, the numbers in the core's messages (a schema's bounds) print through the
/// page's own `String(n)`, which the web layer hands the engine: it must be what
/// `JSON.stringify` gives, and read back to the same number.
#[wasm_bindgen_test]
fn numbers_print_as_json_stringify_does() {
    use coworkkit::web::js::number_text;
    let mut numbers = vec![
        0.1,
        0.1 + 0.2,
        -2.5,
        1e21,
        1e-7,
        123_456_789_012_345_680_000.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        9_007_199_254_740_993.0,
        -1.5e-300,
    ];
    let mut bits = 0x9e37_79b9_7f4a_7c15_u64;
    while numbers.len() < 2000 {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17;
        let n = f64::from_bits(bits);
        if n.is_finite() {
            numbers.push(n);
        }
    }
    for n in numbers {
        let printed = number_text(n);
        let expected = js_sys::JSON::stringify(&n.into()).unwrap();
        assert_eq!(printed, String::from(expected), "{n:e}");
        assert_eq!(js_sys::JSON::parse(&printed).unwrap().as_f64(), Some(n));
    }
}

/// Timers keep a delay as given only up to `i32::MAX` ms (the HTML spec converts it to a
/// 32-bit signed integer, and gloo-timers casts to `i32`): every delay is capped there, so a
/// huge one never wraps to "now", and a NaN or negative one is "now".
#[wasm_bindgen_test]
fn timer_delays_saturate_instead_of_wrapping() {
    use coworkkit::web::time::delay_ms;
    assert_eq!(delay_ms(500.0), 500);
    assert_eq!(
        delay_ms(0.4),
        1,
        "rounded up: a timer must not fire before its deadline"
    );
    assert_eq!(delay_ms(f64::from(i32::MAX) + 1.0), i32::MAX as u32);
    assert_eq!(delay_ms(1e300), i32::MAX as u32);
    assert_eq!(delay_ms(f64::INFINITY), i32::MAX as u32);
    assert_eq!(delay_ms(-5.0), 0);
    assert_eq!(delay_ms(f64::NAN), 0);
}

/// `name`, `callId` and `confirmToken` are bounded before they reach wasm memory (256 UTF-8
/// bytes): at the bound a call goes through, one byte past it the call is refused with the
/// field's own error, and a huge string costs no more than a short one.
#[wasm_bindgen_test]
async fn call_fields_are_bounded_at_256_bytes() {
    let ck = Coworkkit::new(None).unwrap();
    let run = Function::new_no_args("return 1");
    ck.define_action(obj(&[
        ("name", "ping".into()),
        ("description", "Answers.".into()),
        ("run", run.clone().into()),
    ]))
    .unwrap();
    ck.define_action(obj(&[
        ("name", "archiveIt".into()),
        ("description", "Archives.".into()),
        ("control", "soft".into()),
        ("run", run.into()),
    ]))
    .unwrap();
    let invoke = |pairs: &[(&str, JsValue)]| JsFuture::from(ck.invoke(obj(pairs)));
    let code = |outcome: &JsValue| get(&get(outcome, "error"), "code");

    // A callId of 256 bytes (128 two-byte characters) is taken as it is; 257 bytes is refused.
    let at = "é".repeat(128);
    let outcome = invoke(&[("name", "ping".into()), ("callId", at.as_str().into())])
        .await
        .unwrap();
    assert_eq!(get(&outcome, "gate"), "fired");
    assert_eq!(get(&outcome, "callId"), at.as_str());
    let over = format!("{at}a");
    let outcome = invoke(&[("name", "ping".into()), ("callId", over.as_str().into())])
        .await
        .unwrap();
    assert_eq!(get(&outcome, "gate"), "rejected");
    assert_eq!(code(&outcome), "invalid_args");

    // A token past the bound is no token: bad_token, not a lookup.
    let first = invoke(&[("name", "archiveIt".into())]).await.unwrap();
    assert_eq!(get(&first, "gate"), "needs_confirmation");
    let long_token = "t".repeat(257);
    let outcome = invoke(&[
        ("name", "archiveIt".into()),
        ("confirmToken", long_token.as_str().into()),
    ])
    .await
    .unwrap();
    assert_eq!(code(&outcome), "bad_token");

    // A 16 MiB name, callId or token is refused by its length: nothing of it is copied into
    // wasm memory, which would otherwise grow by at least that much.
    let huge = JsValue::from_str(&"x".repeat(16 << 20));
    let memory = || {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        memory
            .buffer()
            .unchecked_into::<js_sys::ArrayBuffer>()
            .byte_length()
    };
    let before = memory();
    let outcome = invoke(&[("name", huge.clone()), ("callId", "c".into())])
        .await
        .unwrap();
    assert_eq!(code(&outcome), "unknown_action");
    let outcome = invoke(&[("name", "ping".into()), ("callId", huge.clone())])
        .await
        .unwrap();
    assert_eq!(code(&outcome), "invalid_args");
    let outcome = invoke(&[("name", "archiveIt".into()), ("confirmToken", huge)])
        .await
        .unwrap();
    assert_eq!(code(&outcome), "bad_token");
    assert!(
        memory() < before + (1 << 20),
        "wasm memory grew from {before} to {} bytes",
        memory()
    );
    ck.dispose();
}

/// Soft tokens are what the SDK promises (SPEC §3.1): 128 bits drawn from
/// `crypto.getRandomValues` for each (the test counts the bytes the page's crypto hands out),
/// none repeated over thousands, each bit position balanced, and nothing shared between two
/// instances of one page.
#[wasm_bindgen_test]
async fn soft_tokens_are_128_bits_from_get_random_values_and_no_two_alike() {
    const PER_INSTANCE: usize = 2000;
    // Count what `crypto.getRandomValues` hands out from here on (an own property shadows the
    // prototype's method; deleted at the end).
    let count = Function::new_no_args(
        "const c = globalThis.crypto, real = Crypto.prototype.getRandomValues;
         globalThis.__drawn = 0;
         c.getRandomValues = function (a) { globalThis.__drawn += a.byteLength; return real.call(c, a); };",
    );
    count.call0(&JsValue::NULL).unwrap();
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let ck = Coworkkit::new(None).unwrap();
        ck.define_action(obj(&[
            ("name", "archiveIt".into()),
            ("description", "Archives.".into()),
            ("control", "soft".into()),
            ("run", Function::new_no_args("return 1").into()),
        ]))
        .unwrap();
        for _ in 0..PER_INSTANCE {
            let first = JsFuture::from(ck.invoke(obj(&[("name", "archiveIt".into())])))
                .await
                .unwrap();
            let token = get(&first, "confirmToken").as_string().unwrap();
            // Declined, so the next call is not refused for too many waiting.
            let no = obj(&[
                ("name", "archiveIt".into()),
                ("confirmToken", token.as_str().into()),
                ("decline", true.into()),
            ]);
            JsFuture::from(ck.invoke(no)).await.unwrap();
            tokens.push(token);
        }
        ck.dispose();
    }
    let drawn = Reflect::get(&js_sys::global(), &"__drawn".into())
        .unwrap()
        .as_f64()
        .unwrap();
    Function::new_no_args("delete globalThis.crypto.getRandomValues; delete globalThis.__drawn;")
        .call0(&JsValue::NULL)
        .unwrap();
    // Each token is 16 bytes of its own (call ids and session ids draw theirs too).
    assert!(
        drawn >= (16 * tokens.len()) as f64,
        "only {drawn} random bytes drawn for {} tokens",
        tokens.len()
    );
    let mut seen = std::collections::HashSet::new();
    let mut ones = [0u32; 128];
    for token in &tokens {
        let hex = token.strip_prefix("ckt_").expect("a token starts ckt_");
        assert_eq!(hex.len(), 32, "{token}");
        assert!(seen.insert(hex.to_owned()), "a token repeated: {token}");
        for (i, digit) in hex.chars().enumerate() {
            let nibble = digit.to_digit(16).expect("hex digits");
            for bit in 0..4 {
                ones[i * 4 + bit] += (nibble >> (3 - bit)) & 1;
            }
        }
    }
    // 4,000 samples a bit: a fair bit is set 50% ± 0.8% (one standard deviation); ±5% is more
    // than six. A counter, a timestamp or a fixed half would put many positions far outside.
    let n = tokens.len() as f64;
    for (position, count) in ones.iter().enumerate() {
        let share = f64::from(*count) / n;
        assert!(
            (0.45..=0.55).contains(&share),
            "bit {position} is set in {:.1}% of the tokens",
            share * 100.0
        );
    }
}

/// SPEC §12 from the API: outside a person's gesture no grant is made (a hard action's is
/// never possible at all); errors are `Error`s with their code; the lists and cancels answer
/// plainly; a stray `reason` is a rejected outcome; a rejection carries its instruction.
#[wasm_bindgen_test]
async fn grants_need_a_gesture_and_a_soft_action_and_reasons_need_a_decline() {
    let ck = Coworkkit::new(None).unwrap();
    let run = Function::new_no_args("return 1");
    for (name, control) in [("archive", "soft"), ("wipe", "hard")] {
        ck.define_action(obj(&[
            ("name", name.into()),
            ("description", "d".into()),
            ("control", control.into()),
            ("run", run.clone().into()),
        ]))
        .unwrap();
    }
    let code = |e: JsValue| {
        assert!(e.is_instance_of::<js_sys::Error>());
        get(&e, "code")
    };
    // No gesture in a test page: the soft action is refused for that, the hard one for itself.
    let outside = ck.grant("archive".into(), None).unwrap_err();
    assert_eq!(code(outside), "needs_user_activation");
    let hard = ck.grant("wipe".into(), None).unwrap_err();
    assert_eq!(code(hard), "invalid_grant");
    let bad = ck
        .grant("archive".into(), Some(obj(&[("ttlMs", 90_000_000.into())])))
        .unwrap_err();
    assert_eq!(code(bad), "invalid_grant");
    let not_a_name = ck.grant(JsValue::from(7), None).unwrap_err();
    assert_eq!(code(not_a_name), "invalid_grant");
    let list = ck.grants();
    assert_eq!(list.length(), 0);
    assert!(Object::is_frozen(&list));
    assert!(!ck.revoke_grant("ckg_1"));
    assert_eq!(ck.cancel_all(None), 0);
    assert!(!ck.cancel("ckp_1", Some(obj(&[("reason", 42.into())]))));

    let call = obj(&[
        ("name", "archive".into()),
        ("args", Object::new().into()),
        ("reason", "the user said yes".into()),
    ]);
    let outcome = JsFuture::from(ck.invoke(call)).await.unwrap();
    assert_eq!(get(&outcome, "gate"), "rejected");
    assert_eq!(get(&get(&outcome, "error"), "code"), "invalid_args");
    assert!(get(&outcome, "instruction")
        .as_string()
        .unwrap()
        .contains("Fix them"));
    ck.dispose();
    assert_eq!(
        code(ck.grant("archive".into(), None).unwrap_err()),
        "disposed"
    );
}
