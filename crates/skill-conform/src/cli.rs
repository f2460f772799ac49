//! The command line: parses arguments with clap and hands each subcommand to the library.
//!
//! Errors are printed here and only here, as one `error: …` line on stderr, and mapped to the
//! exit codes of [`crate::error::ExitCode`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::error::{Error, ExitCode};

/// The longest `--handshake-timeout` / `--run-timeout` accepted: a day, in seconds (a bigger
/// value would overflow a deadline).
pub(crate) const MAX_TIMEOUT_SECS: u64 = 86_400;

/// A timeout flag's value: seconds, with up to three decimals (`10`, `0.5`), from 0.001 to
/// [`MAX_TIMEOUT_SECS`]. Decimal, not a float: `0.1` is exactly 100 ms.
fn timeout_secs(text: &str) -> Result<std::time::Duration, String> {
    let expected = format!("seconds from 0.001 to {MAX_TIMEOUT_SECS}, with up to three decimals");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let is_digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !is_digits(whole) || !is_digits(fraction) || fraction.len() > 3 {
        return Err(format!("`{text}` is not {expected}"));
    }
    // "0.5" → "0500" ms, "10" → "10000" ms.
    let millis = format!("{whole}{fraction:0<3}")
        .parse::<u64>()
        .ok()
        .filter(|ms| (1..=MAX_TIMEOUT_SECS * 1000).contains(ms))
        .ok_or_else(|| format!("`{text}` is out of range: {expected}"))?;
    Ok(std::time::Duration::from_millis(millis))
}

/// The largest `--repeat` and `--max-timeouts` accepted.
pub(crate) const MAX_COUNT: u32 = 1_000;
use crate::reference::{run_reference, LoadList};

#[derive(Debug, Parser)]
#[command(
    name = "skill-conform",
    version,
    about = "Keeps the language ports of a SKILL.md loader byte-identical"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference loader over ROOT... and print its reply as canonical JSON.
    Ref(RefArgs),
    /// Check the goldens against the reference, or regenerate them.
    Goldens(GoldensArgs),
    /// Run every mutant of the reference over every case; fail if one survives.
    Mutants(MutantsArgs),
    /// Speak the adapter protocol on stdin/stdout as the reference (or a mutant of it).
    Adapter(AdapterArgs),
    /// Run the conformance suite: the reference and every available port against the goldens.
    Run(RunArgs),
    /// Run the reference and every port over real skills folders, in place and read-only, and
    /// show only where they disagree (no goldens).
    Corpus(CorpusArgs),
    /// Write a seeded, generated skills tree (the benchmarks' input) into an empty DIR.
    GenCorpus(GenCorpusArgs),
    /// List every port: ready, toolchain present but not set up, or unavailable (with the
    /// reason). Runs only the probes and writes nothing; `--setup` runs the set-up.
    Ports(PortsArgs),
    /// Merge the report.json of several runs (one per CI job) into one Markdown matrix.
    MergeReports {
        /// report.json files.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
    },
    /// Compare two runs (report.json files or report folders): regressions, fixes, moved specs,
    /// changed expectations, cases and port versions. Exit 1 on a regression.
    Diff(DiffArgs),
    /// Explain one case: its summary, the rules it tests (with their text), the fixture tree
    /// with its bytes made visible, and the golden.
    Explain(ExplainArgs),
    /// Print the JSON Schema of the adapter protocol (committed as adapters/protocol.schema.json).
    ProtocolSchema,
    /// Restrict writes (and TCP) with Landlock, then execute PROGRAM (the runner's exec step).
    #[command(hide = true)]
    Isolate(crate::isolate::IsolateArgs),
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The case id, `GROUP/CASE` (e.g. `frontmatter/colon-space`).
    #[arg(value_name = "CASE")]
    pub case: String,
    #[command(flatten)]
    pub repo: RepoArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A port to run: NAME, NAME@VERSION (another library version) or NAME=PATH (a local
    /// checkout). Repeatable; default: `reference` and every port in adapters/ports.toml.
    #[arg(long = "port", value_name = "NAME[@VERSION|=PATH]", value_parser = crate::port::PortRequest::parse_port)]
    pub ports: Vec<crate::port::PortRequest>,
    /// Run any protocol-speaking program as port NAME (split into words as a POSIX shell
    /// would: quotes keep an argument with spaces whole).
    #[arg(long = "adapter", value_name = "NAME=COMMAND", value_parser = crate::port::PortRequest::parse_adapter)]
    pub adapters: Vec<crate::port::PortRequest>,
    /// Only the cases whose id matches GLOB (`*` within a segment, `**` across). Repeatable.
    #[arg(long = "case", value_name = "GLOB")]
    pub cases: Vec<String>,
    /// The contract to judge against: `toolnexus` (default, its ports) or `agentskills` (the
    /// Agent Skills implementations of adapters/ports.toml, printed as one matrix).
    #[arg(long, value_name = "NAME", value_parser = crate::profile::Profile::parse, default_value = "toolnexus")]
    pub profile: crate::profile::Profile,
    /// `--profile agentskills`: also write docs/agentskills-implementations.md from this run.
    #[arg(long)]
    pub write_table: bool,
    /// Exit 3 when these ports are unavailable: `all` or NAME,NAME.
    #[arg(long, value_name = "all|NAME,...", value_parser = crate::run::Require::parse)]
    pub require: Option<crate::run::Require>,
    /// Where report.json, junit.xml, summary.md and matrix.txt go (default: REPO/reports).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Keep each case's sandbox and print where, to reproduce by hand.
    #[arg(long)]
    pub keep_sandbox: bool,
    /// Draft adapters/PORT/expected.toml from this run's divergences.
    #[arg(long)]
    pub write_expected: bool,
    /// Seconds an adapter may take to start and answer hello.
    #[arg(long, default_value = "120", value_name = "SECS", value_parser = timeout_secs)]
    pub handshake_timeout: std::time::Duration,
    /// Seconds one case may take (to the millisecond: `0.5`).
    #[arg(long, default_value = "10", value_name = "SECS", value_parser = timeout_secs)]
    pub run_timeout: std::time::Duration,
    /// After N timeouts in a row a port is broken for the rest of the run; its other cases are
    /// `not-run`.
    #[arg(long, default_value_t = crate::hang_budget::DEFAULT_MAX_TIMEOUTS, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_COUNT)))]
    pub max_timeouts: u32,
    /// Run the selected cases N times per port (one session): pass 1 in plan order, the others
    /// shuffled, their sandboxes' entries created in shuffled order and alternating /dev/shm
    /// and /tmp; a case whose normalised outputs differ is `nondeterministic`.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_COUNT)))]
    pub repeat: u32,
    /// Seed of the case-order and sandbox-entry shuffles (default: from the clock, printed on
    /// stderr).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Shuffle the first pass too (the reports must not change).
    #[arg(long, hide = true)]
    pub shuffle: bool,
    /// Redact durations and sandbox paths in the reports, to compare runs byte for byte.
    #[arg(long, hide = true)]
    pub redact_volatile: bool,
    /// Print libtest's line per trial (ok / FAILED / ignored) instead of the terse summary.
    #[arg(long = "libtest")]
    pub libtest_listing: bool,
    /// Run every port's set-up again, even one remembered as failed (a failed set-up is
    /// remembered until the port's toolchain or the version asked for changes).
    #[arg(long)]
    pub retry_setup: bool,
    #[command(flatten)]
    pub repo: RepoArgs,
    /// libtest arguments: FILTER, --exact, --skip, --list, --format, …
    #[arg(last = true, value_name = "LIBTEST ARGS")]
    pub libtest: Vec<String>,
}

#[derive(Debug, Args)]
pub struct PortsArgs {
    /// Set these ports up first (every port when no NAME is given), trying a remembered
    /// failure again.
    #[arg(long, value_name = "NAME", num_args = 0..)]
    pub setup: Option<Vec<String>>,
    #[command(flatten)]
    pub repo: FoundRepoArgs,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The base run's report.json, its report folder, or a folder of per-job report folders
    /// (`skill-conform-report-<port>/report.json`, read as one run); missing: said, not failed.
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The new run's report.json, report folder, or folder of per-job report folders.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Also write the diff as Markdown (for a CI job summary) to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write the diff as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MutantsArgs {
    /// The profile whose mutants run: `toolnexus` (default) or `agentskills`.
    #[arg(long, value_name = "NAME", value_parser = crate::profile::Profile::parse, default_value = "toolnexus")]
    pub profile: crate::profile::Profile,
    #[command(flatten)]
    pub repo: RepoArgs,
}

#[derive(Debug, Args)]
pub struct CorpusArgs {
    /// Skills folders, in order (read in place, never written).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// A port to run beside the reference: NAME, NAME@VERSION or NAME=PATH. Repeatable;
    /// default: every port in adapters/ports.toml.
    #[arg(long = "port", value_name = "NAME[@VERSION|=PATH]", value_parser = crate::port::PortRequest::parse_port)]
    pub ports: Vec<crate::port::PortRequest>,
    /// Run any protocol-speaking program as port NAME (split into words as a POSIX shell
    /// would: quotes keep an argument with spaces whole).
    #[arg(long = "adapter", value_name = "NAME=COMMAND", value_parser = crate::port::PortRequest::parse_adapter)]
    pub adapters: Vec<crate::port::PortRequest>,
    /// `agentskills`: run the Agent Skills implementations over folders of skill directories
    /// and print which skills each rejects, and why (default `toolnexus`, the ports).
    #[arg(long, value_name = "NAME", value_parser = crate::profile::Profile::parse, default_value = "toolnexus")]
    pub profile: crate::profile::Profile,
    /// Where corpus.json and corpus.md go (default: REPO/reports).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Exit 1 when a port that ran disagrees with the reference.
    #[arg(long)]
    pub fail_on_disagreement: bool,
    /// Also run the writing tool (`claude plugin validate`, set up from npm) over copies of
    /// the folders: which skills it accepts that a port drops.
    #[arg(long)]
    pub writing_tool: bool,
    /// Seconds an adapter may take to start and answer hello.
    #[arg(long, default_value = "120", value_name = "SECS", value_parser = timeout_secs)]
    pub handshake_timeout: std::time::Duration,
    /// Seconds each request may take (the first, which lists the folder, and each batch of
    /// loads).
    #[arg(long, default_value = "300", value_name = "SECS", value_parser = timeout_secs)]
    pub run_timeout: std::time::Duration,
    /// The longest reply line accepted from a port, in bytes (4096 to 1073741824; default
    /// 16 MiB). Loads are batched to fit it; a load alone over it is not compared.
    #[arg(long, default_value_t = crate::session::DEFAULT_LINE_CAP as u64, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(crate::corpus::LINE_CAP_RANGE.0..=crate::corpus::LINE_CAP_RANGE.1))]
    pub line_cap: u64,
    /// Run every port's set-up again, even one remembered as failed.
    #[arg(long)]
    pub retry_setup: bool,
    #[command(flatten)]
    pub repo: FoundRepoArgs,
}

#[derive(Debug, Args)]
pub struct GenCorpusArgs {
    /// The directory to write (must be empty or absent).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// How many skills to generate (at most 1,000,000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=crate::corpus_gen::MAX_SKILLS))]
    pub skills: u64,
    /// The generator's seed: the same (N, S) writes the same tree, byte for byte.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The repository root (holding conformance-fixtures/ and goldens/).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub repo: PathBuf,
}

/// `--repo` for the commands run from anywhere (`corpus`, `ports`).
#[derive(Debug, Args)]
pub struct FoundRepoArgs {
    /// The repository root (default: the nearest ancestor of the current directory holding
    /// adapters/ports.toml, else the nearest such ancestor of this binary).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
}

impl FoundRepoArgs {
    /// The repository: as given, else found ([`crate::repo_root::locate`]).
    pub(crate) fn locate(&self) -> PathBuf {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let exe = std::env::current_exe().ok();
        crate::repo_root::locate(self.repo.as_deref(), &cwd, exe.as_deref())
    }
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct GoldensMode {
    /// Compare the goldens with the reference; write nothing.
    #[arg(long)]
    pub check: bool,
    /// Regenerate the goldens, VERSION and TABLE.md (refused when `CI` is set).
    #[arg(long)]
    pub write: bool,
}

#[derive(Debug, Args)]
pub struct GoldensArgs {
    #[command(flatten)]
    pub mode: GoldensMode,
    #[command(flatten)]
    pub repo: RepoArgs,
}

#[derive(Debug, Args)]
pub struct AdapterArgs {
    /// Serve the reference loader (required: it is the only built-in adapter).
    #[arg(long, required = true)]
    pub reference: bool,
    /// Switch on one deliberate bug (see `skill-conform mutants`).
    #[arg(long, value_name = "NAME")]
    pub mutant: Option<skill_ref::Mutant>,
    /// Misbehave on purpose (for the harness's own fault tests).
    #[arg(long, value_name = "MODE", hide = true)]
    pub fault: Option<crate::session::FaultMode>,
    /// With --fault: only cases matching these comma-separated patterns misbehave.
    #[arg(long, value_name = "LIST", hide = true, requires = "fault")]
    pub fault_cases: Option<String>,
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
        Command::Goldens(args) => cmd_goldens(args),
        Command::Mutants(args) => cmd_mutants(args),
        Command::Adapter(args) => cmd_adapter(args),
        Command::Run(args) => cmd_run(args),
        Command::Corpus(args) => cmd_corpus(args),
        Command::GenCorpus(args) => cmd_gen_corpus(args),
        Command::Ports(args) => crate::readiness::ports(&args.repo.locate(), args.setup.as_deref())
            .map(|text| {
                print!("{text}");
                ExitCode::Ok
            }),
        Command::MergeReports { reports } => {
            crate::report::merge::merge_reports(&reports).map(|text| {
                print!("{text}");
                ExitCode::Ok
            })
        }
        Command::Diff(args) => cmd_diff(args),
        Command::Explain(args) => cmd_explain(args),
        Command::ProtocolSchema => {
            print!(
                "{}",
                skill_ref::canonical::to_canonical_string(&crate::session::protocol_schema())
            );
            Ok(ExitCode::Ok)
        }
        Command::Isolate(args) => crate::isolate::main(args),
    };
    let code = match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            error.exit_code()
        }
    };
    std::process::ExitCode::from(code.code())
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

fn cmd_explain(args: ExplainArgs) -> Result<ExitCode, Error> {
    let layout = check_repo(&args.repo.repo)?;
    print!("{}", crate::explain::explain(&layout, &args.case)?);
    Ok(ExitCode::Ok)
}

fn check_repo(repo: &std::path::Path) -> Result<crate::goldens::Layout, Error> {
    let layout = crate::goldens::Layout::under(repo);
    if !layout.fixtures.is_dir() {
        return Err(Error::Usage(format!(
            "fixture directory `{}` does not exist (hint: run from the repository root or pass --repo DIR)",
            layout.fixtures.display()
        )));
    }
    Ok(layout)
}

fn cmd_goldens(args: GoldensArgs) -> Result<ExitCode, Error> {
    let repo = &args.repo.repo;
    let layout = check_repo(repo)?;
    if args.mode.write {
        let observed = crate::writing_tool::refresh(repo, &layout)?;
        let report = crate::goldens::write(&layout)?;
        print!("{}", report.render(repo));
        print!("{observed}{}", crate::writing_tool::impact(&layout)?);
        for line in crate::profile::agentskills::goldens::write(repo)? {
            println!("{line}");
        }
        return Ok(ExitCode::Ok);
    }
    let report = crate::goldens::check(&layout)?;
    print!("{}", report.render(repo));
    if let Some(problem) = crate::goldens_review::changelog_problem(&layout) {
        println!("{problem}");
        return Ok(ExitCode::Divergence);
    }
    let profile_problems = crate::profile::agentskills::goldens::check(repo)?;
    for line in &profile_problems {
        println!("{line} (hint: run `skill-conform goldens --write` and review the impact)");
    }
    if report.is_fresh() && profile_problems.is_empty() {
        println!("goldens are fresh");
        Ok(ExitCode::Ok)
    } else {
        Ok(ExitCode::Divergence)
    }
}

fn cmd_mutants(args: MutantsArgs) -> Result<ExitCode, Error> {
    let layout = check_repo(&args.repo.repo)?;
    let lines: Vec<(String, bool)> = if args.profile == crate::profile::Profile::Agentskills {
        crate::profile::agentskills::mutants::run_mutants(&args.repo.repo)?
            .iter()
            .map(|o| (o.line(), o.is_killed()))
            .collect()
    } else {
        let cases =
            crate::case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
        crate::mutants::run_mutants(&cases)?
            .iter()
            .map(|o| (o.line(), o.is_killed()))
            .collect()
    };
    let outcomes = &lines;
    let mut survivors = 0;
    for (line, killed) in outcomes {
        println!("{line}");
        if !killed {
            survivors += 1;
        }
    }
    println!(
        "{} mutants, {} killed, {survivors} survived",
        outcomes.len(),
        outcomes.len() - survivors
    );
    Ok(if survivors == 0 {
        ExitCode::Ok
    } else {
        ExitCode::Divergence
    })
}

fn cmd_adapter(args: AdapterArgs) -> Result<ExitCode, Error> {
    let config = args
        .mutant
        .map_or_else(skill_ref::Config::default, skill_ref::Config::mutated);
    let port = match args.mutant {
        Some(m) => format!("reference~{m}"),
        None => "reference".to_owned(),
    };
    let hello = crate::reference::hello(&port);
    let cwd = current_dir()?;
    let mut handler = |request: &crate::session::RunRequest| -> serde_json::Value {
        let roots: Vec<PathBuf> = request.roots.iter().map(PathBuf::from).collect();
        match run_reference(
            config,
            &roots,
            request.sample_limit,
            &request.filter,
            &LoadList::Exactly(request.load.clone()),
            request.tool,
            &cwd,
        ) {
            Ok(run) => serde_json::to_value(&run.output).expect("the output serialises"),
            Err(error) => serde_json::json!({ "error": error.to_string() }),
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let injection = match args.fault {
        None => None,
        Some(mode) => Some(crate::session::FaultInjection {
            mode,
            cases: match &args.fault_cases {
                None => crate::session::fault::CaseMatcher::All,
                Some(list) => crate::session::fault::CaseMatcher::parse(list)
                    .map_err(|e| Error::Usage(e.to_string()))?,
            },
        }),
    };
    crate::session::serve_with(stdin.lock(), stdout.lock(), hello, &mut handler, injection)
        .map_err(|e| Error::io("serving the adapter protocol", e))?;
    Ok(ExitCode::Ok)
}

fn cmd_run(args: RunArgs) -> Result<ExitCode, Error> {
    if args.retry_setup {
        crate::setup_memory::retry_every_setup();
    }
    let mut ports = args.ports;
    ports.extend(args.adapters);
    if args.profile == crate::profile::Profile::Agentskills {
        let repo = &args.repo.repo;
        return crate::profile::agentskills::run::run(repo, &ports, &args.cases, args.write_table);
    }
    let options = crate::run::RunOptions {
        repo: args.repo.repo,
        ports,
        cases: args.cases,
        require: args.require.unwrap_or_default(),
        report_dir: args.report_dir,
        keep_sandbox: args.keep_sandbox,
        write_expected: args.write_expected,
        timeouts: crate::session::Timeouts {
            handshake: args.handshake_timeout,
            run: args.run_timeout,
            ..crate::session::Timeouts::default()
        },
        max_timeouts: std::num::NonZeroU32::new(args.max_timeouts),
        libtest: args.libtest,
        libtest_listing: args.libtest_listing,
        repeat: args.repeat,
        seed: args.seed,
        shuffle: args.shuffle,
        redact_volatile: args.redact_volatile,
    };
    crate::run::run(options)
}

fn cmd_diff(args: DiffArgs) -> Result<ExitCode, Error> {
    use crate::rundiff::{diff_paths, render};
    let diff = diff_paths(&args.base, &args.new)?;
    for (path, text) in [
        (&args.markdown, render::markdown(&diff)),
        (&args.json, render::json(&diff)),
    ] {
        if let Some(path) = path {
            std::fs::write(path, text)
                .map_err(|e| Error::io(format!("writing `{}`", path.display()), e))?;
        }
    }
    print!("{}", render::terminal(&diff));
    Ok(if diff.has_regression() {
        ExitCode::Divergence
    } else {
        ExitCode::Ok
    })
}

fn cmd_corpus(args: CorpusArgs) -> Result<ExitCode, Error> {
    if args.retry_setup {
        crate::setup_memory::retry_every_setup();
    }
    let mut ports = args.ports;
    ports.extend(args.adapters);
    if args.profile == crate::profile::Profile::Agentskills {
        return crate::profile::agentskills::corpus::corpus(
            &args.repo.locate(),
            &args.dirs,
            &ports,
        );
    }
    crate::corpus::corpus(crate::corpus::CorpusOptions {
        repo: args.repo.locate(),
        dirs: args.dirs,
        ports,
        report_dir: args.report_dir,
        fail_on_disagreement: args.fail_on_disagreement,
        writing_tool: args.writing_tool,
        line_cap: usize::try_from(args.line_cap).expect("bounded by LINE_CAP_RANGE when parsed"),
        timeouts: crate::session::Timeouts {
            handshake: args.handshake_timeout,
            run: args.run_timeout,
            ..crate::session::Timeouts::default()
        },
    })
}

fn cmd_gen_corpus(args: GenCorpusArgs) -> Result<ExitCode, Error> {
    let dir = &args.dir;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(Error::Usage(format!(
                "`{}` is not an empty directory (hint: gen-corpus writes only into a new or empty one)",
                dir.display()
            )));
        }
    }
    let skills = usize::try_from(args.skills).expect("bounded by MAX_SKILLS when parsed");
    let progress = |done: usize| eprintln!("gen-corpus: {done} of {skills} skills written");
    let tree = crate::corpus_gen::generate_with_progress(dir, skills, args.seed, progress)
        .map_err(|e| Error::io(format!("writing `{}`", dir.display()), e))?;
    println!(
        "wrote {} SKILL.md files, {} other files and {} symlinks under {} (seed {})",
        tree.skill_files,
        tree.other_files,
        tree.links,
        dir.display(),
        args.seed
    );
    Ok(ExitCode::Ok)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use clap::CommandFactory;

    /// Every long flag of every subcommand.
    fn flags() -> BTreeSet<String> {
        let cli = super::Cli::command();
        cli.get_subcommands()
            .flat_map(|command| command.get_arguments())
            .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
            .collect()
    }

    /// Timeouts are decimal seconds to the millisecond, bounded at both ends.
    #[test]
    fn a_timeout_is_decimal_seconds_from_a_millisecond_to_a_day() {
        use std::time::Duration;
        let ms = |text| super::timeout_secs(text).map(|d: Duration| d.as_millis());
        assert_eq!(ms("10"), Ok(10_000));
        assert_eq!(ms("0.5"), Ok(500));
        assert_eq!(ms("0.001"), Ok(1));
        assert_eq!(ms("1.25"), Ok(1_250));
        assert_eq!(ms("86400"), Ok(86_400_000));
        for refused in [
            "0",
            "0.000",
            "86400.001",
            "18446744073709551615",
            "0.0001",
            "",
            ".5",
        ] {
            assert!(ms(refused).is_err(), "{refused:?} was accepted");
        }
        for refused in ["-1", "1e3", "1,5", " 1", "0x10", "1.5s"] {
            assert!(ms(refused).is_err(), "{refused:?} was accepted");
        }
    }

    /// A hint never names a flag that does not exist (one named `--fixtures` once).
    #[test]
    fn every_flag_a_hint_names_exists() {
        let known = flags();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../skill-conform/src");
        let mut unknown = BTreeSet::new();
        for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for line in text
                .lines()
                .filter(|l| l.contains("hint:") && !l.contains("cargo "))
            {
                let hint = &line[line.find("hint:").unwrap()..];
                for word in hint.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
                    if word.starts_with("--") && word.len() > 2 && !known.contains(word) {
                        unknown.insert(format!("{}: {word}", entry.path().display()));
                    }
                }
            }
        }
        assert!(unknown.is_empty(), "hints name unknown flags: {unknown:#?}");
        assert!(known.contains("--repo") && !known.contains("--fixtures"));
    }
}
