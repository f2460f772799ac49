//! The `agentskills` profile in the harness: its cases ([`case`]), its goldens ([`goldens`]),
//! its mutants ([`mutants`]), and per implementation its judged replies ([`judge`], [`run`])
//! and its answers over real folders ([`corpus`]). The rules themselves are
//! `skill_ref::agentskills` (spec: `crates/skill-ref/AGENTSKILLS.md`).

pub mod case;
pub mod corpus;
pub mod goldens;
pub mod judge;
pub mod mutants;
pub mod run;
pub mod table;
