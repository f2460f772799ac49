//! skill-conform: conformance harness for the language ports of a SKILL.md loader.
pub mod case;
pub mod cli;
pub mod compare;
pub mod corpus_gen;
pub mod error;
pub mod goldens;
pub mod judge;
pub mod mutants;
pub mod normalize;
pub mod observe;
pub mod plan;
pub mod port;
pub mod reference;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod session;
