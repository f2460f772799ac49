//! The adapter protocol, version 1: the messages as types, the reply check, and the JSON Schema.
//!
//! The runner writes [`Request`]s, one compact JSON object per line, to an adapter's stdin and
//! reads one line back per request. The hello reply is parsed into [`HelloReply`]; a run reply is
//! kept as a [`serde_json::Value`] (see [`check_run_reply`]) so that fields an adapter adds or
//! leaves out reach the judge instead of being dropped by a typed parse.
//!
//! The reply body is `skill_ref::output`'s types (the reference writes them; their schema is
//! derived there), wrapped in [`RunReply`] with the echoed case id so that [`protocol_schema`]
//! can describe the wire. Nothing in the session parses a run reply into them.

use std::collections::BTreeMap;

use super::strict_json::StrictJsonError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use skill_ref::output::{Inventory, Load, SkillEntry, Skip, SkipReason, ToolDeclaration};

/// The protocol version this harness speaks; the hello handshake must answer with it.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest piece of an offending line kept as evidence, in bytes.
pub(crate) const EVIDENCE_LINE_BYTES: usize = 2048;

/// One request line, runner → adapter. Tagged by its `cmd` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "cmd", rename_all = "lowercase")]
pub enum Request {
    /// The first request: which protocol the runner speaks. Answered by a [`HelloReply`].
    Hello { protocol: u32 },
    /// Load one case. Answered by a [`RunReply`] or an [`ErrorReply`].
    Run(RunRequest),
    /// The last request: the adapter exits (status 0) without answering.
    Bye,
}

impl Request {
    /// The request as one compact JSON line, without the trailing newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a request always serialises")
    }
}

/// What one `run` asks for: the case's roots (absolute, in order) and the loader options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    /// The case id, `group/case`; the reply must echo it.
    pub case: String,
    /// Absolute skill roots, in order.
    pub roots: Vec<String>,
    /// The sample limit: 0 = the default cap of 10, n > 0 = cap n, -1 = no `<skill_files>` block;
    /// any other value is passed on as is (a hazard case).
    pub sample_limit: i64,
    /// Skill name → keep. Empty keeps all; any `true` makes an allowlist of the true names; only
    /// `false` entries make a drop-list; unknown names are ignored.
    pub filter: BTreeMap<String, bool>,
    /// The names to call the `skill` tool with, in order.
    pub load: Vec<String>,
    /// Whether the reply carries the `skill` tool's declaration.
    pub tool: bool,
    /// The profile's own fields; absent for `toolnexus`, whose adapters never see them.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileRun>,
}

/// The fields a `run` request of another profile than `toolnexus` adds (adapters/PROTOCOL.md,
/// "Profiles"); the toolnexus fields are then sent with neutral values and ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileRun {
    /// The profile the case belongs to; absent means `toolnexus`.
    pub profile: crate::profile::Profile,
    /// `agentskills`: the skill directories to check (names relative to the root), in order.
    pub skills: Vec<String>,
    /// `agentskills`: the skill directories to render into the `<available_skills>` prompt.
    pub prompt: Vec<String>,
}

/// The adapter's answer to `hello`. Extra fields are allowed: kept for the report, never judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HelloReply {
    /// Must be 1, the protocol version the runner speaks ([`PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The port's name, e.g. `python`.
    pub port: String,
    /// The library under test, e.g. `toolnexus`.
    pub library: String,
    /// The library's version.
    pub version: String,
    /// The runtime, e.g. `CPython 3.11.7`.
    pub runtime: String,
    /// Further libraries the port loads SKILL.md with, name → version (e.g. its YAML parser);
    /// optional, kept for the report.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub libraries: BTreeMap<String, String>,
    /// The profiles the adapter speaks, each with the capabilities (reply parts) it offers;
    /// absent means a toolnexus adapter offering everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<BTreeMap<crate::profile::Profile, Vec<String>>>,
    /// Any further fields the adapter reports.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl HelloReply {
    /// A hello reply for protocol [`PROTOCOL_VERSION`] with no extra fields.
    pub fn new(
        port: impl Into<String>,
        library: impl Into<String>,
        version: impl Into<String>,
        runtime: impl Into<String>,
    ) -> Self {
        HelloReply {
            protocol: PROTOCOL_VERSION,
            port: port.into(),
            library: library.into(),
            version: version.into(),
            runtime: runtime.into(),
            libraries: BTreeMap::new(),
            profiles: None,
            extra: BTreeMap::new(),
        }
    }
}

/// A successful `run` reply: the case id plus `skill_ref::output::Output`'s fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct RunReply {
    /// The request's case id, echoed.
    pub case: String,
    pub inventory: Inventory,
    pub loads: Vec<Load>,
    pub prompt: String,
    /// Present only when the request had `"tool": true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolDeclaration>,
}

/// A `run` reply for a case the port threw on, or (without `case`) the answer to a request the
/// adapter could not parse.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct ErrorReply {
    /// The request's case id; absent only when the request itself was malformed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// What the port threw, in its own words.
    pub error: String,
}

/// One JSON Schema (draft 2020-12) document describing every message of protocol version 1.
///
/// `$defs` holds `Request` (hello, run and bye, told apart by `cmd`), `HelloReply`, `RunReply`,
/// `ErrorReply` and the types they use; the document itself accepts any one message.
pub fn protocol_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let messages = [
        generator.subschema_for::<Request>(),
        generator.subschema_for::<HelloReply>(),
        generator.subschema_for::<RunReply>(),
        generator.subschema_for::<ErrorReply>(),
    ];
    let definitions = generator.take_definitions(true);
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "skill-conform adapter protocol",
        "description": "One JSON object per line. Runner to adapter: a Request. Adapter to \
            runner: a HelloReply to hello, a RunReply or an ErrorReply to run, nothing to bye.",
        "x-protocol-version": PROTOCOL_VERSION,
        "anyOf": messages.iter().map(|schema| schema.as_value()).collect::<Vec<_>>(),
        "$defs": definitions,
    })
}

/// Why a run reply that parsed as JSON is still not a reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReplyProblem {
    /// The line is JSON but not an object.
    NotAnObject,
    /// `error` is present but not a string.
    ErrorNotAString,
    /// Neither `error` nor any of [`RESULT_FIELDS`] is present.
    NoResultFields,
    /// An object names `key` twice: the reply says two things at once.
    DuplicateKey { key: String },
}

/// What [`check_run_reply`] rejected, with the evidence.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplyRejection {
    /// The line does not parse as JSON.
    NotJson,
    /// `case` is missing (`None`) or differs from the request's.
    WrongCase { got: Option<Value> },
    /// The object is not shaped like a reply.
    Malformed(ReplyProblem),
}

/// The result fields of a run reply; a reply must carry at least one of them, or `error`.
/// (`skills` is the `agentskills` profile's.)
pub(crate) const RESULT_FIELDS: [&str; 4] = ["inventory", "loads", "prompt", "skills"];

/// Checks one run reply line and returns it as a JSON value.
///
/// Accepted: a JSON object whose `case` equals `expected_case` and that has either a string
/// `error` or at least one of [`RESULT_FIELDS`]. The shape of the result fields is not checked
/// here: a missing or extra field is the judge's to see in the diff.
pub fn check_run_reply(line: &str, expected_case: &str) -> Result<Value, ReplyRejection> {
    let value = super::strict_json::parse(line).map_err(|error| match error {
        StrictJsonError::Invalid => ReplyRejection::NotJson,
        StrictJsonError::DuplicateKey(key) => {
            ReplyRejection::Malformed(ReplyProblem::DuplicateKey { key })
        }
    })?;
    let Some(object) = value.as_object() else {
        return Err(ReplyRejection::Malformed(ReplyProblem::NotAnObject));
    };
    match object.get("case") {
        Some(Value::String(case)) if case == expected_case => {}
        got => return Err(ReplyRejection::WrongCase { got: got.cloned() }),
    }
    match object.get("error") {
        Some(Value::String(_)) => return Ok(value),
        Some(_) => return Err(ReplyRejection::Malformed(ReplyProblem::ErrorNotAString)),
        None => {}
    }
    if !RESULT_FIELDS
        .iter()
        .any(|field| object.contains_key(*field))
    {
        return Err(ReplyRejection::Malformed(ReplyProblem::NoResultFields));
    }
    Ok(value)
}

/// Cuts `line` to at most [`EVIDENCE_LINE_BYTES`] bytes, on a character boundary.
pub(crate) fn evidence_line(line: &str) -> String {
    if line.len() <= EVIDENCE_LINE_BYTES {
        return line.to_owned();
    }
    let mut end = EVIDENCE_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_have_the_documented_wire_form() {
        assert_eq!(
            Request::Hello { protocol: 1 }.to_line(),
            r#"{"cmd":"hello","protocol":1}"#
        );
        assert_eq!(Request::Bye.to_line(), r#"{"cmd":"bye"}"#);
        let run = Request::Run(RunRequest {
            case: "frontmatter/colon-space".into(),
            roots: vec!["/abs/root0".into()],
            sample_limit: 0,
            filter: BTreeMap::new(),
            load: vec!["colon-space".into(), "no-such-skill".into()],
            tool: false,
            profile: None,
        });
        let line = run.to_line();
        assert_eq!(
            serde_json::from_str::<Value>(&line).unwrap(),
            json!({"cmd":"run","case":"frontmatter/colon-space","roots":["/abs/root0"],
                   "sampleLimit":0,"filter":{},"load":["colon-space","no-such-skill"],
                   "tool":false})
        );
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), run);
    }

    #[test]
    fn hello_reply_requires_the_five_fields_and_keeps_extras() {
        let reply: HelloReply = serde_json::from_str(
            r#"{"protocol":1,"port":"python","library":"toolnexus","version":"0.21.0",
                "runtime":"CPython 3.11.7","pid":42}"#,
        )
        .unwrap();
        assert_eq!(reply.port, "python");
        assert_eq!(reply.extra.get("pid"), Some(&json!(42)));
        let missing = r#"{"protocol":1,"port":"python","library":"toolnexus","version":"1"}"#;
        assert!(serde_json::from_str::<HelloReply>(missing).is_err());
    }

    #[test]
    fn run_reply_check_accepts_results_or_error_and_rejects_the_rest() {
        let ok = check_run_reply(r#"{"case":"g/c","prompt":"p","extra":1}"#, "g/c").unwrap();
        assert_eq!(ok["extra"], json!(1));
        assert!(check_run_reply(r#"{"case":"g/c","error":"boom"}"#, "g/c").is_ok());
        let cases = [
            ("{not json", ReplyRejection::NotJson),
            ("[1]", ReplyRejection::Malformed(ReplyProblem::NotAnObject)),
            (
                r#"{"case":"g/d","prompt":""}"#,
                ReplyRejection::WrongCase {
                    got: Some(json!("g/d")),
                },
            ),
            (r#"{"prompt":""}"#, ReplyRejection::WrongCase { got: None }),
            (
                r#"{"case":"g/c","error":3}"#,
                ReplyRejection::Malformed(ReplyProblem::ErrorNotAString),
            ),
            (
                r#"{"case":"g/c"}"#,
                ReplyRejection::Malformed(ReplyProblem::NoResultFields),
            ),
            (
                r#"{"case":"g/c","prompt":"a","prompt":"b"}"#,
                ReplyRejection::Malformed(ReplyProblem::DuplicateKey {
                    key: "prompt".into(),
                }),
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(
                check_run_reply(line, "g/c").unwrap_err(),
                expected,
                "{line}"
            );
        }
    }

    #[test]
    fn evidence_lines_are_cut_on_a_char_boundary() {
        let line = "é".repeat(EVIDENCE_LINE_BYTES);
        let cut = evidence_line(&line);
        assert!(cut.len() <= EVIDENCE_LINE_BYTES && cut.len() >= EVIDENCE_LINE_BYTES - 1);
        assert_eq!(evidence_line("short"), "short");
    }

    #[test]
    fn schema_defines_every_message() {
        let schema = protocol_schema();
        let defs = schema["$defs"].as_object().unwrap();
        for name in [
            "Request",
            "RunRequest",
            "HelloReply",
            "RunReply",
            "ErrorReply",
        ] {
            assert!(defs.contains_key(name), "missing definition {name}");
        }
        assert_eq!(schema["anyOf"].as_array().unwrap().len(), 4);
        let required = |def: &str| -> Vec<String> {
            let mut fields: Vec<String> =
                serde_json::from_value(defs[def]["required"].clone()).unwrap();
            fields.sort();
            fields
        };
        assert_eq!(
            required("HelloReply"),
            ["library", "port", "protocol", "runtime", "version"]
        );
        assert!(required("RunRequest").contains(&"sampleLimit".to_owned()));
        assert!(required("SkillEntry").contains(&"description".to_owned()));
        let commands: Vec<&Value> = defs["Request"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|variant| find_cmd_const(variant, defs).expect("each variant fixes cmd"))
            .collect();
        assert_eq!(commands, [&json!("hello"), &json!("run"), &json!("bye")]);
    }

    /// The `cmd` constant of a `Request` variant, looking through `$ref` and `allOf`.
    fn find_cmd_const<'a>(
        schema: &'a Value,
        defs: &'a serde_json::Map<String, Value>,
    ) -> Option<&'a Value> {
        if let Some(value) = schema.pointer("/properties/cmd/const") {
            return Some(value);
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.strip_prefix("#/$defs/")?;
            return find_cmd_const(&defs[name], defs);
        }
        schema
            .get("allOf")?
            .as_array()?
            .iter()
            .find_map(|part| find_cmd_const(part, defs))
    }
}
