//! Argument validation against the JSON Schema subset of SPEC §2.
//!
//! Supported: `type` (object, string, number, integer, boolean, array, null, or an array of
//! them), `properties`, `required`, `items` (one schema), `enum`, `const`, `minimum`,
//! `maximum`, `minLength`/`maxLength` (in Unicode characters), `additionalProperties`
//! (boolean or schema), and the boolean schemas `true`/`false`. Annotations (`description`,
//! `title`, `default`, `examples`, `format`, `$schema`, …) are ignored. Validation keywords
//! outside the subset (`pattern`, `anyOf`, `$ref`, `minItems`, …) make the schema
//! `invalid_spec`: silently not enforcing a constraint the developer wrote would be worse than
//! refusing it. Use a Standard Schema (zod, valibot) for those.
//!
//! As in JSON Schema, a keyword only constrains values of its kind: `minLength` says nothing
//! about a number, `properties` nothing about an array.

use super::error::Error;
use super::ids::hex_id;
use super::value::Value;

const TYPE_NULL: u8 = 1;
const TYPE_BOOLEAN: u8 = 2;
const TYPE_OBJECT: u8 = 4;
const TYPE_ARRAY: u8 = 8;
const TYPE_NUMBER: u8 = 16;
const TYPE_STRING: u8 = 32;
const TYPE_INTEGER: u8 = 64;

const TYPE_NAMES: [(&str, u8); 7] = [
    ("object", TYPE_OBJECT),
    ("string", TYPE_STRING),
    ("number", TYPE_NUMBER),
    ("integer", TYPE_INTEGER),
    ("boolean", TYPE_BOOLEAN),
    ("array", TYPE_ARRAY),
    ("null", TYPE_NULL),
];

/// Validation keywords this subset does not enforce; a schema that uses one is refused.
const UNSUPPORTED: [&str; 24] = [
    "pattern",
    "patternProperties",
    "propertyNames",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "$ref",
];

/// A parsed, checked schema, ready to validate arguments.
#[derive(Clone, Debug)]
pub struct Schema {
    root: Node,
    /// The schema as written, for tool manifests.
    source: Value,
}

#[derive(Clone, Debug, Default)]
struct Node {
    /// `false` schema: nothing is valid.
    never: bool,
    /// Bit set of allowed types; 0 = any.
    types: u8,
    properties: Vec<(String, Node)>,
    required: Vec<String>,
    items: Option<Box<Node>>,
    enumeration: Option<Vec<Value>>,
    constant: Option<Value>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    additional: Additional,
}

#[derive(Clone, Debug, Default)]
enum Additional {
    #[default]
    Any,
    Never,
    Schema(Box<Node>),
}

impl Schema {
    /// Checks and compiles a JSON Schema given as plain data; a malformed schema is
    /// [`Error::InvalidSpec`] naming where (`input.properties.title.minLength: …`).
    pub fn parse(spec: &Value) -> Result<Schema, Error> {
        let mut path = String::from("input");
        Ok(Schema {
            root: parse_node(spec, &mut path, 0)?,
            source: spec.clone(),
        })
    }

    /// The JSON Schema this was parsed from, as written (manifests show it to the agent).
    pub fn source(&self) -> &Value {
        &self.source
    }

    /// Validates arguments; the first failure is [`Error::InvalidArgs`] naming its path,
    /// e.g. `args.items[2].title: expected string`. A bound in the message (`must be at most
    /// 0.5`) is printed by `number_text` (see [`Config::number_text`](super::engine::Config)).
    pub fn validate(&self, args: &Value, number_text: fn(f64) -> String) -> Result<(), Error> {
        let mut path = Vec::new();
        check(&self.root, args, &mut path)
            .map_err(|message| Error::InvalidArgs(render(&path, message, number_text)))
    }
}

fn spec_error(path: &str, message: &str) -> Error {
    let mut text = String::with_capacity(path.len() + message.len() + 2);
    text.push_str(path);
    text.push_str(": ");
    text.push_str(message);
    Error::InvalidSpec(text)
}

fn push_key(path: &mut String, key: &str) {
    path.push('.');
    path.push_str(key);
}

fn count(value: &Value, path: &str) -> Result<usize, Error> {
    match value {
        Value::Number(n) if n.fract() == 0.0 && *n >= 0.0 && *n < 4_294_967_296.0 => {
            Ok(*n as usize)
        }
        _ => Err(spec_error(path, "must be a non-negative integer")),
    }
}

fn parse_node(spec: &Value, path: &mut String, depth: usize) -> Result<Node, Error> {
    let fields = match spec {
        Value::Bool(true) => return Ok(Node::default()),
        Value::Bool(false) => {
            return Ok(Node {
                never: true,
                ..Node::default()
            })
        }
        Value::Object(fields) => fields,
        _ => return Err(spec_error(path, "a schema must be an object or a boolean")),
    };
    if depth > 32 {
        return Err(spec_error(path, "nested too deeply"));
    }
    let mut node = Node::default();
    for (key, value) in fields {
        let mark = path.len();
        push_key(path, key);
        match key.as_str() {
            "type" => {
                node.types = match value {
                    Value::String(name) => type_bit(name, path)?,
                    Value::Array(names) if !names.is_empty() => {
                        let mut bits = 0;
                        for name in names {
                            match name {
                                Value::String(name) => bits |= type_bit(name, path)?,
                                _ => return Err(spec_error(path, "type names must be strings")),
                            }
                        }
                        bits
                    }
                    _ => return Err(spec_error(path, "must be a type name or a non-empty array of them")),
                }
            }
            "properties" => {
                let Value::Object(props) = value else {
                    return Err(spec_error(path, "must be an object"));
                };
                for (name, sub) in props {
                    let mark = path.len();
                    push_key(path, name);
                    node.properties
                        .push((name.clone(), parse_node(sub, path, depth + 1)?));
                    path.truncate(mark);
                }
            }
            "required" => {
                let Value::Array(names) = value else {
                    return Err(spec_error(path, "must be an array of property names"));
                };
                for name in names {
                    match name {
                        Value::String(name) => node.required.push(name.clone()),
                        _ => return Err(spec_error(path, "must be an array of property names")),
                    }
                }
            }
            "items" => node.items = Some(Box::new(parse_node(value, path, depth + 1)?)),
            "additionalProperties" => {
                node.additional = match value {
                    Value::Bool(true) => Additional::Any,
                    Value::Bool(false) => Additional::Never,
                    _ => Additional::Schema(Box::new(parse_node(value, path, depth + 1)?)),
                }
            }
            "enum" => match value {
                Value::Array(options) => node.enumeration = Some(options.clone()),
                _ => return Err(spec_error(path, "must be an array")),
            },
            "const" => node.constant = Some(value.clone()),
            "minimum" | "maximum" => {
                let Value::Number(n) = value else {
                    return Err(spec_error(path, "must be a number"));
                };
                if key == "minimum" {
                    node.minimum = Some(*n);
                } else {
                    node.maximum = Some(*n);
                }
            }
            "minLength" => node.min_length = Some(count(value, path)?),
            "maxLength" => node.max_length = Some(count(value, path)?),
            other if UNSUPPORTED.contains(&other) => {
                return Err(spec_error(
                    path,
                    "is not supported by coworkkit's JSON Schema subset; use a Standard Schema (zod, valibot) for it",
                ))
            }
            _ => {} // annotations and unknown keywords
        }
        path.truncate(mark);
    }
    Ok(node)
}

fn type_bit(name: &str, path: &str) -> Result<u8, Error> {
    TYPE_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bit)| *bit)
        .ok_or_else(|| spec_error(path, "unknown type name"))
}

/// One step of the path to a failing value; rendered only when validation fails.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The message for `message` at `path` (innermost step first, as [`check`] leaves it).
fn render(path: &[Step<'_>], message: Failure, number_text: fn(f64) -> String) -> String {
    let mut out = String::from("args");
    for step in path.iter().rev() {
        match step {
            Step::Key(key) => push_path_key(&mut out, key),
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out.push_str(": ");
    match message {
        Failure::Type(bits) => {
            out.push_str("expected ");
            let mut first = true;
            for (name, bit) in TYPE_NAMES {
                if bits & bit != 0 {
                    if !first {
                        out.push_str(" or ");
                    }
                    out.push_str(name);
                    first = false;
                }
            }
        }
        Failure::Text(text) => out.push_str(text),
        Failure::Bound(text, bound) => {
            out.push_str(text);
            out.push_str(&number_text(bound));
        }
    }
    out
}

fn is_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// One key of a path in a message, as JavaScript would write it: `.title` for an identifier,
/// else `["a b"]`, the key double-quoted with quotes, backslashes and control characters
/// escaped. (Standard Schema issues are rendered with it too.)
pub(crate) fn push_path_key(out: &mut String, key: &str) {
    if is_identifier(key) {
        push_key(out, key);
        return;
    }
    out.push_str("[\"");
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // `\u00XX`: the code's one byte as hex, as ids are written.
            c if c < ' ' => out.push_str(&hex_id("\\u00", &[c as u8])),
            c => out.push(c),
        }
    }
    out.push_str("\"]");
}

/// Why a value failed, rendered with its path only when needed.
enum Failure {
    Type(u8),
    Text(&'static str),
    Bound(&'static str, f64),
}

fn type_of(value: &Value) -> u8 {
    match value {
        Value::Null => TYPE_NULL,
        Value::Bool(_) => TYPE_BOOLEAN,
        Value::Object(_) => TYPE_OBJECT,
        Value::Array(_) => TYPE_ARRAY,
        Value::String(_) => TYPE_STRING,
        Value::Number(n) if n.fract() == 0.0 => TYPE_NUMBER | TYPE_INTEGER,
        Value::Number(_) => TYPE_NUMBER,
    }
}

/// Checks `value` against `node`. On a failure, `path` holds the steps to the failing value,
/// innermost first: each container adds its step as the failure comes back up, so a value
/// that passes builds no path at all.
fn check<'a>(node: &'a Node, value: &'a Value, path: &mut Vec<Step<'a>>) -> Result<(), Failure> {
    if node.never {
        return Err(Failure::Text("no value is allowed here"));
    }
    if node.types != 0 && type_of(value) & node.types == 0 {
        return Err(Failure::Type(node.types));
    }
    if let Some(constant) = &node.constant {
        if !value.canonical_eq(constant) {
            return Err(Failure::Text("does not equal the required constant"));
        }
    }
    if let Some(options) = &node.enumeration {
        if !options.iter().any(|option| value.canonical_eq(option)) {
            return Err(Failure::Text("is not one of the allowed values"));
        }
    }
    match value {
        Value::Number(n) => {
            if let Some(min) = node.minimum {
                if *n < min {
                    return Err(Failure::Bound("must be at least ", min));
                }
            }
            if let Some(max) = node.maximum {
                if *n > max {
                    return Err(Failure::Bound("must be at most ", max));
                }
            }
        }
        Value::String(s) => {
            if node.min_length.is_some() || node.max_length.is_some() {
                // JSON Schema counts a string's length in code points.
                let chars = s.chars().count();
                if let Some(min) = node.min_length {
                    if chars < min {
                        return Err(Failure::Bound(
                            "must have at least this many characters: ",
                            min as f64,
                        ));
                    }
                }
                if let Some(max) = node.max_length {
                    if chars > max {
                        return Err(Failure::Bound(
                            "must have at most this many characters: ",
                            max as f64,
                        ));
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_node) = &node.items {
                for (i, item) in items.iter().enumerate() {
                    if let Err(failure) = check(item_node, item, path) {
                        path.push(Step::Index(i));
                        return Err(failure);
                    }
                }
            }
        }
        Value::Object(fields) => {
            for name in &node.required {
                if value.get(name).is_none() {
                    path.push(Step::Key(name));
                    return Err(Failure::Text("is required"));
                }
            }
            for (key, item) in fields {
                let checked = match node.properties.iter().find(|(name, _)| name == key) {
                    Some((_, sub)) => check(sub, item, path),
                    None => match &node.additional {
                        Additional::Any => Ok(()),
                        Additional::Never => Err(Failure::Text("is not an allowed property")),
                        Additional::Schema(sub) => check(sub, item, path),
                    },
                };
                if let Err(failure) = checked {
                    path.push(Step::Key(key));
                    return Err(failure);
                }
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    Ok(())
}
