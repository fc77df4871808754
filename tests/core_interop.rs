#![cfg(not(target_arch = "wasm32"))]
//! Agent interoperability (SPEC §7): manifest shapes, soft confirmation fields, MCP hints
//! and Standard Schema issue messages, all as plain data.

use coworkkit::core::control::Control;
use coworkkit::core::error::Error;
use coworkkit::core::interop::*;
use coworkkit::core::value::Value;

fn v(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap()
}

/// A manifest entry as compact JSON text.
fn entry_text(format: ToolFormat, tool: &ToolInfo<'_>) -> String {
    json(&tool_entry(format, tool))
}

/// An input schema as compact JSON text.
fn schema_text(tool: &ToolInfo<'_>, soft_params: bool) -> String {
    json(&input_schema(tool, soft_params))
}

/// A manifest entry, read back as a value.
fn parsed_entry(format: ToolFormat, tool: &ToolInfo<'_>) -> Value {
    v(&entry_text(format, tool))
}

fn tool<'a>(name: &'a str, control: Control, schema: Option<&'a Value>) -> ToolInfo<'a> {
    ToolInfo {
        name,
        description: "Does a thing.",
        control,
        read_only: false,
        idempotent: false,
        untrusted_content: false,
        input_schema: schema,
        has_input: schema.is_some(),
    }
}

#[test]
fn formats_parse_and_unknown_is_invalid_spec() {
    assert_eq!(ToolFormat::parse("openai"), Ok(ToolFormat::OpenAi));
    assert_eq!(
        ToolFormat::parse("openai-responses"),
        Ok(ToolFormat::OpenAiResponses)
    );
    assert_eq!(ToolFormat::parse("anthropic"), Ok(ToolFormat::Anthropic));
    assert_eq!(ToolFormat::parse("mcp"), Ok(ToolFormat::Mcp));
    assert_eq!(ToolFormat::parse("json"), Ok(ToolFormat::Json));
    assert_eq!(ToolFormat::parse("ag-ui"), Ok(ToolFormat::AgUi));
    let err = ToolFormat::parse("gemini").unwrap_err();
    assert_eq!(err.code(), "invalid_spec");
    assert!(err.to_string().contains("\"gemini\""));
    // The message lists every format, AG-UI's among them.
    assert!(err.to_string().contains("mcp or ag-ui"));
    // WebMCP's shape is no `tools(format)` format.
    assert!(ToolFormat::parse("webmcp").is_err());
    assert!(ToolFormat::parse("AG-UI").is_err());
}

#[test]
fn open_action_in_every_format() {
    let schema = v(r#"{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}"#);
    let mut t = tool("search", Control::Open, Some(&schema));
    t.read_only = true;
    t.idempotent = true;
    let params = r#"{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}"#;
    assert_eq!(
        entry_text(ToolFormat::OpenAi, &t),
        format!(
            r#"{{"type":"function","function":{{"name":"search","description":"Does a thing.","parameters":{params}}}}}"#
        )
    );
    assert_eq!(
        entry_text(ToolFormat::OpenAiResponses, &t),
        format!(
            r#"{{"type":"function","name":"search","description":"Does a thing.","parameters":{params},"strict":false}}"#
        )
    );
    assert_eq!(
        entry_text(ToolFormat::Anthropic, &t),
        format!(r#"{{"name":"search","description":"Does a thing.","input_schema":{params}}}"#)
    );
    assert_eq!(
        entry_text(ToolFormat::Mcp, &t),
        format!(
            r#"{{"name":"search","description":"Does a thing.","inputSchema":{params},"annotations":{{"readOnlyHint":true,"idempotentHint":true}}}}"#
        )
    );
    // AG-UI's `Tool`: name, description and the JSON Schema as `parameters`, nothing else.
    assert_eq!(
        entry_text(ToolFormat::AgUi, &t),
        format!(r#"{{"name":"search","description":"Does a thing.","parameters":{params}}}"#)
    );
    assert_eq!(
        entry_text(ToolFormat::Json, &t),
        format!(
            r#"{{"name":"search","description":"Does a thing.","control":"open","inputSchema":{params},"readOnly":true,"idempotent":true}}"#
        )
    );
}

#[test]
fn no_input_is_an_empty_object_schema_and_unknown_input_is_permissive() {
    let none = tool("ping", Control::Open, None);
    assert_eq!(
        schema_text(&none, false),
        r#"{"type":"object","properties":{}}"#
    );
    let mut unknown = tool("ping", Control::Open, None);
    unknown.has_input = true;
    assert_eq!(schema_text(&unknown, false), r#"{"type":"object"}"#);
    // A root that is not an object schema cannot be a tool's parameters.
    let string = v(r#"{"type":"string"}"#);
    assert_eq!(
        schema_text(&tool("x", Control::Open, Some(&string)), false),
        r#"{"type":"object"}"#
    );
    // `type` made explicit and first; `$schema` dropped; the rest kept as declared.
    let zodish = v(
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"type":"number"}},"additionalProperties":false}"#,
    );
    assert_eq!(
        schema_text(&tool("x", Control::Open, Some(&zodish)), false),
        r#"{"type":"object","properties":{"a":{"type":"number"}},"additionalProperties":false}"#
    );
}

#[test]
fn declared_schemas_keep_their_values_down_to_negative_zero() {
    // The manifest gives back what was declared, `-0` included (serde_json prints it `-0.0`;
    // the browser gets the number -0 through serde-wasm-bindgen).
    let schema = v(r#"{"properties":{"n":{"minimum":-0,"enum":[-0,0.5,1e21]}}}"#);
    assert_eq!(
        schema_text(&tool("x", Control::Open, Some(&schema)), false),
        r#"{"type":"object","properties":{"n":{"minimum":-0.0,"enum":[-0.0,0.5,1e+21]}}}"#
    );
    // The soft parameters replace an app's own `confirmToken` / `decline` / `declineReason` and
    // come last.
    let clash = v(
        r#"{"properties":{"decline":{},"a":{},"confirmToken":{},"declineReason":{}},"required":["a"]}"#,
    );
    let text = schema_text(&tool("x", Control::Soft, Some(&clash)), true);
    let props = v(&text).get("properties").cloned().unwrap();
    let Value::Object(props) = props else {
        unreachable!()
    };
    let keys: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["a", "confirmToken", "decline", "declineReason"]);
    assert!(text.ends_with(r#""required":["a"]}"#));
    // A `properties` that is not an object becomes the soft parameters alone.
    let odd = v(r#"{"properties":7}"#);
    let text = schema_text(&tool("x", Control::Soft, Some(&odd)), true);
    assert!(text.starts_with(r#"{"type":"object","properties":{"confirmToken":"#));
}

#[test]
fn soft_actions_get_optional_token_and_decline_and_a_sentence() {
    let schema = v(r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#);
    let t = tool("archiveThread", Control::Soft, Some(&schema));
    let entry = parsed_entry(ToolFormat::Anthropic, &t);
    let description = entry.get("description").and_then(Value::as_str).unwrap();
    assert!(description.starts_with("Does a thing. This asks first"));
    assert!(description.contains("confirmToken"));
    let input = entry.get("input_schema").unwrap();
    assert_eq!(json(input.get("required").unwrap()), r#"["id"]"#);
    let props = input.get("properties").unwrap();
    assert_eq!(
        props.get("confirmToken").unwrap().get("type"),
        Some(&v(r#""string""#))
    );
    assert_eq!(
        props.get("decline").unwrap().get("type"),
        Some(&v(r#""boolean""#))
    );
    assert_eq!(
        props.get("declineReason").unwrap().get("type"),
        Some(&v(r#""string""#))
    );
    assert!(description.contains("declineReason"));
    // Without an input schema, too.
    let bare = tool("archiveAll", Control::Soft, None);
    let input = v(&schema_text(&bare, true));
    assert!(input
        .get("properties")
        .unwrap()
        .get("confirmToken")
        .is_some());
    // The neutral listing keeps the app's words and schema.
    let listing = parsed_entry(ToolFormat::Json, &t);
    assert_eq!(
        listing.get("description").and_then(Value::as_str),
        Some("Does a thing.")
    );
    assert_eq!(listing.get("inputSchema"), Some(&schema));
}

#[test]
fn ag_ui_tools_get_the_words_and_soft_parameters_the_other_formats_get() {
    let schema = v(r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#);
    for control in [Control::Soft, Control::Hard] {
        let t = tool("archiveThread", control, Some(&schema));
        let ag_ui = parsed_entry(ToolFormat::AgUi, &t);
        let chat = parsed_entry(ToolFormat::OpenAi, &t);
        let chat = chat.get("function").unwrap();
        // Exactly OpenAI Chat's function: the same description sentence, the same parameters
        // (a soft action's `confirmToken`, `decline` and `declineReason` among them).
        assert_eq!(json(&ag_ui), json(chat), "{control:?}");
    }
    let soft = parsed_entry(
        ToolFormat::AgUi,
        &tool("archiveThread", Control::Soft, Some(&schema)),
    );
    assert!(soft
        .get("description")
        .and_then(Value::as_str)
        .unwrap()
        .ends_with(SOFT_NOTE));
    let props = soft.get("parameters").unwrap().get("properties").unwrap();
    for key in ["id", "confirmToken", "decline", "declineReason"] {
        assert!(props.get(key).is_some(), "{key}");
    }
    assert_eq!(
        json(soft.get("parameters").unwrap().get("required").unwrap()),
        r#"["id"]"#
    );
}

#[test]
fn hard_actions_say_a_person_confirms_and_mcp_marks_them_destructive() {
    let mut t = tool("deleteProject", Control::Hard, None);
    t.description = "Delete a project";
    let entry = parsed_entry(ToolFormat::Mcp, &t);
    assert_eq!(
        entry.get("description").and_then(Value::as_str),
        Some(format!("Delete a project. {HARD_NOTE}").as_str())
    );
    assert_eq!(
        json(entry.get("annotations").unwrap()),
        r#"{"destructiveHint":true}"#
    );
    assert!(entry
        .get("inputSchema")
        .unwrap()
        .get("properties")
        .unwrap()
        .get("confirmToken")
        .is_none());
    let soft = parsed_entry(ToolFormat::Mcp, &tool("archive", Control::Soft, None));
    assert_eq!(
        json(soft.get("annotations").unwrap()),
        r#"{"destructiveHint":false}"#
    );
    // readOnly on a gated action is not claimed.
    let mut gated = tool("peek", Control::Soft, None);
    gated.read_only = true;
    assert_eq!(
        json(
            parsed_entry(ToolFormat::Mcp, &gated)
                .get("annotations")
                .unwrap()
        ),
        r#"{"destructiveHint":false}"#
    );
}

#[test]
fn mcp_annotations_round_trip_to_control() {
    let c = |s: &str| control_from_mcp_annotations(Some(&v(s)));
    assert_eq!(control_from_mcp_annotations(None), Control::Hard);
    assert_eq!(c("{}"), Control::Hard);
    assert_eq!(c(r#"{"readOnlyHint":true}"#), Control::Open);
    assert_eq!(
        c(r#"{"readOnlyHint":true,"destructiveHint":true}"#),
        Control::Open
    );
    assert_eq!(c(r#"{"destructiveHint":false}"#), Control::Soft);
    assert_eq!(c(r#"{"destructiveHint":true}"#), Control::Hard);
    assert_eq!(c(r#"{"readOnlyHint":false}"#), Control::Hard);
    assert_eq!(c(r#"{"readOnlyHint":"yes"}"#), Control::Hard);
    assert_eq!(
        c(r#"{"destructiveHint":false,"idempotentHint":true}"#),
        Control::Soft
    );
    for control in [Control::Open, Control::Soft, Control::Hard] {
        let mut t = tool("x", control, None);
        t.read_only = control == Control::Open;
        let entry = parsed_entry(ToolFormat::Mcp, &t);
        assert_eq!(
            control_from_mcp_annotations(entry.get("annotations")),
            control
        );
    }
}

// Reading a provider tool call (its shape, id, name and arguments) is one JS pass
// (`ckReadToolCall`); the end-to-end suite pins it (tests/e2e/interop.test.mjs, "OpenAI Chat: …",
// "malformed calls …" and "reading a provider call: …").

#[test]
fn confirm_fields_are_taken_out_of_soft_args() {
    let mut args = v(r#"{"id":"t1","confirmToken":"ckt_abc","decline":true}"#);
    let fields = take_confirm_fields(&mut args);
    assert_eq!(fields.token.as_deref(), Some("ckt_abc"));
    assert!(fields.decline);
    assert_eq!(fields.error, None);
    assert_eq!(args, v(r#"{"id":"t1"}"#));

    let mut args = v(r#"{"id":"t1","confirmToken":null,"decline":"no"}"#);
    let fields = take_confirm_fields(&mut args);
    assert_eq!(fields, ConfirmFields::default());
    assert_eq!(args, v(r#"{"id":"t1","decline":"no"}"#));

    let mut args = v(r#"{"confirmToken":7}"#);
    assert_eq!(take_confirm_fields(&mut args).error, Some(Error::BadToken));
    assert_eq!(args, v("{}"));

    // The user's reason, beside a decline; the engine judges whether it may stand.
    let mut args = v(r#"{"id":"t1","declineReason":"not now","decline":true,"confirmToken":"t"}"#);
    let fields = take_confirm_fields(&mut args);
    assert_eq!(fields.reason.as_deref(), Some("not now"));
    assert_eq!(args, v(r#"{"id":"t1"}"#));
    let mut args = v(r#"{"declineReason":null}"#);
    assert_eq!(take_confirm_fields(&mut args), ConfirmFields::default());
    let mut args = v(r#"{"declineReason":["no"]}"#);
    assert_eq!(
        take_confirm_fields(&mut args).error.map(|e| e.code()),
        Some("invalid_args")
    );
    assert_eq!(args, v("{}"));
}

// The tool result (its shape, content and the line for the model) is built in JS from the
// outcome (`ckAnswer`); the end-to-end suite pins it (tests/e2e/interop.test.mjs, "tool
// results: …").

/// One step of an issue's path, as a Standard Schema reports it.
enum Step<'a> {
    Key(&'a str),
    Index(u32),
}

/// The `invalid_args` error of `issues`, each read into an [`IssueList`] as the web layer reads
/// a Standard Schema's.
fn issues_error(issues: &[(Vec<Step<'_>>, &str)]) -> Error {
    let mut list = IssueList::default();
    for (path, message) in issues {
        list.start();
        for step in path {
            match step {
                Step::Key(key) => list.key(key),
                Step::Index(n) => list.index(*n),
            }
        }
        list.end(message);
    }
    list.into_error()
}

#[test]
fn standard_schema_issues_become_one_invalid_args_message() {
    let err = issues_error(&[
        (vec![Step::Key("title")], "Expected string, received number"),
        (
            vec![Step::Key("items"), Step::Index(2), Step::Key("a b")],
            "Required",
        ),
        (Vec::new(), "Bad"),
    ]);
    assert_eq!(
        err,
        Error::InvalidArgs(
            r#"args.title: Expected string, received number; args.items[2]["a b"]: Required; args: Bad"#
                .into()
        )
    );
    let many: Vec<_> = (0..10).map(|i| (vec![Step::Index(i)], "x")).collect();
    let Error::InvalidArgs(message) = issues_error(&many) else {
        unreachable!()
    };
    assert!(message.ends_with("args[7]: x; and 2 more"));
    assert_eq!(issues_error(&[]).code(), "invalid_args");
}

#[test]
fn webmcp_tools_carry_the_mcp_words_and_schema_a_title_and_three_hints() {
    let schema = v(r#"{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}"#);
    let mut soft = tool("archiveThread", Control::Soft, Some(&schema));
    soft.untrusted_content = true;
    let entry = parsed_entry(ToolFormat::WebMcp, &soft);
    let mcp = parsed_entry(ToolFormat::Mcp, &soft);
    let Value::Object(fields) = &entry else {
        unreachable!()
    };
    let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    // Only these: in particular no summary, which never leaves the page.
    assert_eq!(
        keys,
        ["name", "title", "description", "inputSchema", "annotations"]
    );
    assert_eq!(entry.get("name"), Some(&v(r#""archiveThread""#)));
    assert_eq!(entry.get("title"), Some(&v(r#""Archive thread""#)));
    assert_eq!(entry.get("description"), mcp.get("description"));
    assert_eq!(entry.get("inputSchema"), mcp.get("inputSchema"));
    let props = entry.get("inputSchema").and_then(|s| s.get("properties"));
    assert!(props.and_then(|p| p.get("confirmToken")).is_some());
    assert!(props.and_then(|p| p.get("decline")).is_some());
    assert_eq!(
        json(entry.get("annotations").unwrap()),
        r#"{"readOnlyHint":false,"consequentialHint":true,"untrustedContentHint":true}"#
    );

    let mut read = tool("getTask", Control::Open, None);
    read.read_only = true;
    let hints = parsed_entry(ToolFormat::WebMcp, &read);
    assert_eq!(
        json(hints.get("annotations").unwrap()),
        r#"{"readOnlyHint":true,"consequentialHint":false,"untrustedContentHint":false}"#
    );
    // read-only is a hint for open actions only; a hard one is consequential whatever it says.
    let mut hard = tool("deleteProject", Control::Hard, None);
    hard.read_only = true;
    let hints = parsed_entry(ToolFormat::WebMcp, &hard);
    assert_eq!(
        json(hints.get("annotations").unwrap()),
        r#"{"readOnlyHint":false,"consequentialHint":true,"untrustedContentHint":false}"#
    );
}
