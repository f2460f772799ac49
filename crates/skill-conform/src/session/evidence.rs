//! What went wrong with an adapter process: one closed taxonomy of faults, each carrying its data.
//!
//! Nothing here formats text for humans (style habit 4): the judge maps a [`Fault`] to a status
//! (see [`Fault::kind`]) and the reports render the evidence. All types serialise, so
//! `report.json` can carry them as they are.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::protocol::ReplyProblem;

/// One thing an adapter process did wrong (or that went wrong starting it). The one fault
/// taxonomy: [`FaultKind`] is its fieldless twin (generated), and it is the report's form too —
/// `FaultDetails` flattens it beside the phase, so each kind carries exactly its own data
/// (`kind` is the tag; the field names are `report.json`'s).
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::EnumDiscriminants,
)]
#[strum_discriminants(
    name(FaultKind),
    derive(PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema),
    serde(rename_all = "kebab-case"),
    doc = "A fieldless name for each [`Fault`] variant (generated from it), for the judge's status mapping and the report."
)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fault {
    /// The adapter could not be started at all (missing program, bad cwd, …).
    SpawnFailed {
        /// The OS error, as the OS words it.
        #[serde(rename = "osError")]
        error: String,
    },
    /// The hello reply arrived but is not an acceptable hello.
    BadHandshake {
        #[serde(rename = "problem")]
        reason: HandshakeProblem,
    },
    /// No reply line before the deadline.
    Timeout {
        /// The deadline that passed.
        #[serde(rename = "timeoutMs", with = "millis")]
        #[schemars(with = "u64")]
        after: Duration,
    },
    /// The adapter's stdout closed (it exited or crashed) before a full reply line.
    Exited {
        /// Exit code, if it exited normally.
        #[serde(
            rename = "exitStatus",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        status: Option<i32>,
        /// Signal number, if a signal ended it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<i32>,
        /// Bytes written after the last newline before stdout closed (cut to ~2 KiB).
        #[serde(rename = "line", default, skip_serializing_if = "Option::is_none")]
        partial: Option<String>,
    },
    /// The reply line is not JSON (or not UTF-8).
    NotJson {
        /// The line, cut to ~2 KiB.
        line: String,
        /// The full length of the line in bytes.
        bytes: usize,
    },
    /// The reply's `case` is missing or is not the request's case id.
    WrongCase {
        /// The case id that was asked for.
        #[serde(rename = "expectedCase")]
        expected: String,
        /// The reply's `case`; `None` when the reply has no `case` field.
        #[serde(rename = "gotCase", default, skip_serializing_if = "Option::is_none")]
        got: Option<Value>,
    },
    /// The reply is JSON but not shaped like a run reply.
    BadReply {
        problem: ReplyProblem,
        /// The line, cut to ~2 KiB.
        line: String,
    },
    /// A stdout line grew past the byte cap; reading stopped there.
    Oversize {
        /// Bytes of the line read before giving up (more than `cap`).
        bytes: u64,
        /// The byte cap the line crossed.
        cap: u64,
    },
    /// A stdout line arrived while no request was waiting for one.
    Unsolicited {
        /// The line, cut to ~2 KiB.
        line: String,
    },
    /// The request could not be written to the adapter's stdin although it had not exited.
    WriteFailed {
        /// The OS error, as the OS words it.
        #[serde(rename = "osError")]
        error: String,
    },
}

/// Why a hello reply was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "problem", rename_all = "kebab-case")]
pub enum HandshakeProblem {
    /// The reply line is not JSON.
    NotJson { line: String },
    /// JSON, but a required field is missing or has the wrong type.
    Malformed {
        /// serde's description of what is wrong.
        error: String,
        line: String,
    },
    /// The adapter speaks another protocol version.
    WrongProtocol { expected: u32, got: u32 },
}

impl Fault {
    /// Which variant this is.
    pub fn kind(&self) -> FaultKind {
        FaultKind::from(self)
    }
}

/// Which exchange a fault happened in.
///
/// A fault in the [`Phase::Handshake`] (the first start or a restart) means the port cannot be
/// talked to at all, whatever the fault's kind: the judge should call that `broken`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Spawning the process and the hello exchange.
    Handshake,
    /// A `run` request.
    Run,
    /// `bye` and the wait for the process to exit.
    Bye,
}

/// The last lines the adapter wrote to stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StderrTail {
    /// At most the last 40 lines and 64 KiB, decoded lossily.
    pub text: String,
    /// Everything the process wrote to stderr, in bytes (more than `text` when cut).
    pub total_bytes: u64,
}

/// A fault with everything known about it: when it happened and what the adapter said on stderr.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultEvidence {
    pub fault: Fault,
    pub phase: Phase,
    /// The case being run, for [`Phase::Run`].
    pub case: Option<String>,
    pub stderr_tail: StderrTail,
    /// When the session restarted the adapter after this fault and the restart failed too: the
    /// restart's own evidence (which the next call reports again).
    pub restart_failed: Option<Box<FaultEvidence>>,
}

/// A [`Duration`] as whole milliseconds.
mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(
        duration: &Duration,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Duration, D::Error> {
        u64::deserialize(deserializer).map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn faults_serialise_with_a_kind_tag_and_their_data() {
        let timeout = Fault::Timeout {
            after: Duration::from_millis(1500),
        };
        assert_eq!(
            serde_json::to_value(&timeout).unwrap(),
            json!({"kind":"timeout","timeoutMs":1500})
        );
        assert_eq!(timeout.kind(), FaultKind::Timeout);
        let handshake = Fault::BadHandshake {
            reason: HandshakeProblem::WrongProtocol {
                expected: 1,
                got: 99,
            },
        };
        assert_eq!(
            serde_json::to_value(&handshake).unwrap(),
            json!({"kind":"bad-handshake",
                   "problem":{"problem":"wrong-protocol","expected":1,"got":99}})
        );
    }
}
