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
//! | [`goldens`]   | the committed goldens: layout, `--check`, `--write`                   |
//! | `reference`   | the reference loader run over a case (and its hello)                  |
//! | [`mutants`]   | deliberately wrong reference variants, each killed by some case       |
//! | [`plan`]      | stage 1: the validated [`plan::Plan`] and each case's request          |
//! | [`port`]      | `adapters/ports.toml`, port requests as given, resolving and set-up   |
//! | `bounded`     | probes and set-up in their own process group under a named timeout    |
//! | `setup_memory`| a failed set-up remembered per port until its version or probes change |
//! | [`sandbox`]   | each case's fixture copy (links, renames, unreadable files)           |
//! | [`session`]   | one adapter process: protocol, timeouts, faults, process group        |
//! | `origin`      | where a port's library came from: registry pin, `@VERSION`, checkout  |
//! | `progress`    | per-port status lines on stderr and the terse closing summary         |
//! | `observe`     | stage 2: start a port, run its cases in sessions, collect replies     |
//! | `normalize`   | replies to their compared form (roots as `{rootN}`, sorted inventory) |
//! | [`compare`]   | golden vs reply: mismatches and their rendering                       |
//! | [`judge`]     | stage 3: verdicts, statuses, `expected.toml`, clusters, exit code     |
//! | [`report`]    | stage 4: every rendering, the typed report and the vocabulary         |
//! | `repo_root`   | the repository found from the current directory or the binary         |
//! | [`run`]       | `skill-conform run`: plan → observe → judge → report                  |
//! | [`corpus`]    | `skill-conform corpus`: the ports against each other on a real folder |
//! | [`corpus_gen`]| the seeded generated skills tree (benchmarks' input)                  |
//!
//! The `pub` modules are the surface the CLI, the integration tests and the benches use.

mod bounded;
pub mod case;
pub mod cli;
pub mod compare;
pub mod corpus;
pub mod corpus_gen;
pub mod error;
pub mod goldens;
pub mod interrupt;
pub mod isolate;
pub mod judge;
pub mod mutants;
mod normalize;
mod observe;
mod origin;
pub mod plan;
pub mod port;
mod progress;
mod reference;
mod repo_root;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod session;
mod setup_memory;
pub mod tamper;
pub mod writing_tool;
