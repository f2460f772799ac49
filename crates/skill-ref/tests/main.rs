//! Every integration test of the reference, in one test binary: seven binaries took 3.6 s of
//! CPU to build and link in a fresh clone, one takes a fraction of that (BENCHMARKS.md, "First
//! use"). Each module is one former test file; `common` is their shared fixture builder.

mod common;

mod agentskills_fixtures;
mod agentskills_ports;
mod agentskills_rules;
mod issue93;
mod order_independence;
mod rule_ids;
mod rules;
