//! The integration tests, one binary: each module was a file of its own under `tests/`. One
//! binary links once, and its tests run side by side instead of one binary after another (a
//! fresh clone's `cargo test` spends its time here; BENCHMARKS.md, "First use"). Every module
//! keeps its own temporary directories, `TMPDIR` and process groups, so none sees another's.
//! `session_faults` stays a binary of its own (libtest-mimic, `harness = false`).

mod common;

mod adapter_hello;
mod adapter_pins;
mod agentskills_profile;
mod bundle;
mod case_discovery;
mod checkout_version;
mod cli;
mod compare_render;
mod composite_action;
mod containment;
mod corpus;
mod corpus_html;
mod determinism;
mod fault_injection;
mod fixture_escape;
mod function_length;
mod goldens;
mod goldens_review;
mod interrupt;
mod isolate;
mod msrv;
mod port_columns;
mod ports;
mod protocol_schema;
mod report_html;
mod report_schema;
mod report_snapshots;
mod reproduce;
mod rundiff_cli;
mod sandbox;
mod toml_errors;
mod writing_tool;
