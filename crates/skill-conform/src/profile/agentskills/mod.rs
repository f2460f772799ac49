//! The `agentskills` profile in the harness: its cases ([`case`]), its goldens ([`goldens`])
//! and, per implementation, its judged replies ([`judge`]). The rules themselves are
//! `skill_ref::agentskills` (spec: `crates/skill-ref/AGENTSKILLS.md`).

pub mod case;
pub mod goldens;
pub mod judge;
pub mod run;
