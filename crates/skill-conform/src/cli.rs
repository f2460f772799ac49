//! The command line: parses arguments with clap and hands each subcommand to the library.
//!
//! Errors are printed here and only here, as one `error: …` line on stderr, and mapped to the
//! exit codes of [`crate::error::ExitCode`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::error::{Error, ExitCode};
use crate::reference::{run_reference, LoadList};

#[derive(Debug, Parser)]
#[command(
    name = "skill-conform",
    version,
    about = "Keeps the language ports of a SKILL.md loader byte-identical"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference loader over ROOT... and print its reply as canonical JSON.
    Ref(RefArgs),
}

#[derive(Debug, Args)]
pub struct RefArgs {
    /// Skill roots, in order.
    #[arg(required = true, value_name = "ROOT")]
    pub roots: Vec<PathBuf>,
    /// 0 = default cap of 10, n > 0 = cap n, -1 = no file list.
    #[arg(
        long,
        default_value_t = 0,
        allow_negative_numbers = true,
        value_name = "N"
    )]
    pub sample_limit: i64,
    /// Also call the skill tool with NAME (after every accepted name).
    #[arg(long = "load", value_name = "NAME")]
    pub load: Vec<String>,
    /// Filter entry NAME=true|false (repeatable).
    #[arg(long = "filter", value_name = "NAME=BOOL", value_parser = parse_filter_entry)]
    pub filter: Vec<(String, bool)>,
    /// Also print the skill tool's declaration.
    #[arg(long)]
    pub tool: bool,
}

fn parse_filter_entry(text: &str) -> Result<(String, bool), String> {
    let (name, value) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=BOOL (hint: --filter pdf=true)"))?;
    let keep = match value {
        "true" => true,
        "false" => false,
        other => return Err(format!("`{other}` is not true or false")),
    };
    Ok((name.to_owned(), keep))
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ref(args) => cmd_ref(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            error.exit_code()
        }
    };
    std::process::ExitCode::from(code as u8)
}

fn current_dir() -> Result<PathBuf, Error> {
    std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))
}

fn cmd_ref(args: RefArgs) -> Result<ExitCode, Error> {
    for root in &args.roots {
        if !root.is_dir() {
            return Err(Error::MissingRoot(root.clone()));
        }
    }
    let filter: BTreeMap<String, bool> = args.filter.into_iter().collect();
    let run = run_reference(
        skill_ref::Config::default(),
        &args.roots,
        args.sample_limit,
        &filter,
        &LoadList::AcceptedThen(args.load),
        args.tool,
        &current_dir()?,
    )
    .map_err(|e| Error::Usage(format!("{e} (in --sample-limit)")))?;
    for warning in &run.warnings {
        eprintln!("warning: {warning}");
    }
    let text = skill_ref::canonical::to_canonical_string(&run.output);
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("writing stdout", e))?;
    Ok(ExitCode::Ok)
}
