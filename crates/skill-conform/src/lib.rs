//! skill-conform: conformance harness for the language ports of a SKILL.md loader.
//!
//! A run goes through these stages, in order (`run` and `corpus` are each one short function
//! over them):
//!
//! 1. **plan** — [`plan`]: what the user asked, validated before anything starts ([`plan::Plan`]:
//!    ports as given, cases with their goldens, report targets, timeouts, repeat and seed).
//! 2. **observe** — `observe`: each port resolved and set up ([`port`], `bounded`), started as an
//!    adapter [`session`], fed one request per case in a [`sandbox`], its replies normalised
//!    (`normalize`).
//! 3. **judge** — [`judge`]: one verdict per (port, case) against the goldens, compared by
//!    [`compare`]; agreement clusters; the exit code.
//! 4. **report** — [`report`]: the terminal matrix, `report.json` (typed, with a schema),
//!    JUnit, `summary.md`, the merged matrix and `corpus`'s reports; the vocabulary table.
//!
//! One line per module:
//!
//! | module        | owns                                                                  |
//! |---------------|-----------------------------------------------------------------------|
//! | [`cli`]       | the command line: clap arguments to each command's options            |
//! | [`error`]     | usage and port-trouble errors, the exit codes and their precedence    |
//! | [`case`]      | fixture discovery, `case.toml`, case ids and the one case-glob builder |
//! | [`explain`]   | `skill-conform explain CASE`: summary, rules with their text, bytes, golden |
//! | [`goldens`]   | the committed goldens: layout, `--check`, `--write`                   |
//! | [`goldens_review`] | `goldens --write`'s grouped impact and the revision-bump refusal   |
//! | [`guard`]     | the repository digest before and after a run: `tampered`              |
//! | `reference`   | the reference loader run over a case (and its hello)                  |
//! | `output_dir`  | report locations proved writable before anything runs                 |
//! | [`mutants`]   | deliberately wrong reference variants, each killed by some case       |
//! | [`isolate`]   | the Landlock write/network policy and the hidden `isolate` exec step  |
//! | [`tamper`]    | digests of fixtures, goldens, `expected.toml` and sandboxes; their diff |
//! | [`interrupt`] | SIGINT/SIGTERM: kill registered process groups, remove temp dirs      |
//! | [`plan`]      | stage 1: the validated [`plan::Plan`] and each case's request          |
//! | [`profile`]   | contract profiles (toolnexus, agentskills): layout, rules, replies    |
//! | [`port`]      | `adapters/ports.toml`, port requests as given, resolving and set-up   |
//! | `bounded`     | probes and set-up in their own process group under a named timeout    |
//! | [`confine`]   | adapters started in their own directory, write-restricted (Landlock)  |
//! | [`sandbox`]   | each case's fixture copy (links, renames, unreadable files); `check`: its faults without a copy |
//! | [`session`]   | one adapter process: protocol, timeouts, faults, process group        |
//! | [`readiness`] | `skill-conform ports`: ready / not set up / unavailable, no side effects |
//! | [`port_columns`] | one column per port as given (`python@0.18.1` beside `python`)    |
//! | [`reproduce`] | each trial's reproduce line: the port as given, TMPDIR, repo, repeat/seed |
//! | `setup_memory`| a failed set-up remembered per port until its version or probes change |
//! | `origin`      | where a port's library came from: registry pin, `@VERSION`, checkout  |
//! | `progress`    | per-port status lines on stderr and the terse closing summary         |
//! | `observe`     | stage 2: start a port, run its cases in sessions, collect replies     |
//! | `partial`     | the results judged so far, reported on SIGINT/SIGTERM                 |
//! | `hang_budget` | consecutive timeouts before a port's remaining cases are not run      |
//! | `normalize`   | replies to their compared form (roots as `{rootN}`, sorted inventory) |
//! | [`compare`]   | golden vs reply: mismatches and their rendering                       |
//! | [`judge`]     | stage 3: verdicts, statuses, `expected.toml`, clusters, exit code     |
//! | [`report`]    | stage 4: every rendering, the typed report and the vocabulary         |
//! | `repo_root`   | the repository found from the current directory or the binary         |
//! | [`run`]       | `skill-conform run`: plan → observe → judge → report                  |
//! | [`corpus`]    | `skill-conform corpus`: the ports against each other on a real folder |
//! | [`corpus_gen`]| the seeded generated skills tree (benchmarks' input)                  |
//! | [`rundiff`]   | `skill-conform diff`: per (port, case) transitions between two runs  |
//! | [`writing_tool`] | `claude plugin validate` observed per case: the writing-tool column |
//! | `toml_file`   | the one TOML reader: serde types, errors with file, line and field    |
//!
//! The `pub` modules are the surface the CLI, the integration tests and the benches use; inside
//! them an item is `pub` only when one of those names it, and `pub(crate)` otherwise.

// The docs link the crate's own items, most of them `pub(crate)`: read them with
// `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

mod bounded;
pub mod case;
pub mod cli;
pub mod compare;
pub mod confine;
pub mod corpus;
pub mod corpus_gen;
pub mod error;
pub mod explain;
pub mod goldens;
pub mod goldens_review;
pub mod guard;
mod hang_budget;
pub mod interrupt;
pub mod isolate;
pub mod judge;
pub mod mutants;
mod normalize;
mod observe;
mod origin;
mod output_dir;
mod partial;
pub mod plan;
pub mod port;
pub mod port_columns;
pub mod profile;
mod progress;
pub mod readiness;
mod reference;
mod repo_root;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod rundiff;
pub mod sandbox;
pub mod session;
mod setup_memory;
pub mod tamper;
#[cfg(test)]
mod test_tempdir;
mod toml_file;
pub mod writing_tool;
