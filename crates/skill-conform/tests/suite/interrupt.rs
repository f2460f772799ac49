//! SIGINT and SIGTERM mid-run: a child process (this test binary, re-executed as a helper)
//! installs the interrupt handler, starts a process group (a shell with a sleeping child),
//! makes a registered temporary directory and a sandbox, and waits. After the signal: the exit
//! code is 130 or 143, no process of the group survives, both directories are gone, and the
//! hook (the partial report) ran.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skill_conform::case::{CaseId, CaseSpec};
use skill_conform::interrupt::{self, Interruption};
use skill_conform::sandbox::Sandbox;

/// Set in the helper's environment: the file its hook writes.
const HELPER_ENV: &str = "SKILL_CONFORM_INTERRUPT_HELPER";

/// Set in the helper's environment to make its hook hang after writing (a stuck report).
const HANG_ENV: &str = "SKILL_CONFORM_INTERRUPT_HELPER_HANG";

/// The helper: does nothing unless re-executed with `HELPER_ENV`. It never waits for its shell:
/// the interrupt handler kills the group and the helper exits before it could.
#[allow(clippy::zombie_processes)]
fn helper_holding_a_group_and_directories() {
    let Some(hook_file) = std::env::var_os(HELPER_ENV) else {
        return;
    };
    interrupt::install(Box::new(move |interruption: Interruption| {
        std::fs::write(hook_file, format!("{interruption:?}")).unwrap();
        if std::env::var_os(HANG_ENV).is_some() {
            std::thread::sleep(Duration::from_secs(1000));
        }
    }))
    .unwrap();
    let shell = Command::new("sh")
        .args(["-c", "sleep 1000 & sleep 1000; wait"])
        .process_group(0)
        .spawn()
        .unwrap();
    let _group = interrupt::register_group(shell.id());
    let temp = crate::common::tempdir();
    std::fs::write(temp.path().join("file"), "x").unwrap();
    let _temp = interrupt::register_dir(temp.path());
    let sandbox = sandbox_of_a_small_case(temp.path());
    println!(
        "ready {} {} {}",
        shell.id(),
        temp.path().display(),
        sandbox.path().display()
    );
    std::thread::sleep(Duration::from_secs(1000));
}

fn sandbox_of_a_small_case(temp: &Path) -> Sandbox {
    let dir = temp.join("g/c");
    std::fs::create_dir_all(dir.join("skills/a")).unwrap();
    std::fs::write(dir.join("skills/a/SKILL.md"), "a").unwrap();
    let text = "summary = \"s\"\npinned = true\nrules = [\"§2\"]\n";
    let spec = CaseSpec::parse(CaseId::new("g", "c").unwrap(), dir, text).unwrap();
    Sandbox::prepare(&spec, false).unwrap()
}

/// The live (not zombie) processes whose process group is `pgid`, from /proc.
fn live_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        if fields[0] != "Z" && fields[2] == pgid.to_string() {
            members.push(pid);
        }
    }
    members
}

/// Polls `done` for up to ten seconds (processes start and die asynchronously).
fn wait_until(mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What an interrupted helper left: its exit code, its group, its directories, its hook's text.
struct Outcome {
    code: Option<i32>,
    pgid: u32,
    dirs: Vec<PathBuf>,
    hook: String,
}

/// SIGKILLs a group when dropped, so a failing test leaves no sleeping process behind.
struct KillGroupOnDrop(u32);

impl Drop for KillGroupOnDrop {
    fn drop(&mut self) {
        unsafe { libc::kill(-(self.0 as i32), libc::SIGKILL) };
    }
}

impl Outcome {
    fn assert_clean(&self) {
        let _cleanup = KillGroupOnDrop(self.pgid);
        let survivors = live_members(self.pgid);
        assert_eq!(survivors, Vec::<u32>::new(), "survivors in the group");
        for dir in &self.dirs {
            assert!(!dir.exists(), "`{}` is left", dir.display());
        }
    }
}

fn interrupt_helper(signal: i32) -> Outcome {
    interrupt_helper_with(&[signal], false)
}

/// Starts the helper, sends it `signals` (each after the first once its hook ran), and waits.
fn interrupt_helper_with(signals: &[i32], hang: bool) -> Outcome {
    let hook = crate::common::tempdir();
    let hook_file = hook.path().join("partial-report");
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "interrupt::helper_holding_a_group_and_directories",
        ])
        .args(["--nocapture", "--test-threads", "1"])
        .env(HELPER_ENV, &hook_file)
        .stdout(Stdio::piped());
    if hang {
        command.env(HANG_ENV, "1");
    }
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // libtest prints `test NAME ... ` first, on the same line.
    let ready = lines
        .find_map(|line| Some(line.ok()?.split_once("ready ")?.1.to_owned()))
        .expect("the helper gets ready");
    let words: Vec<&str> = ready.split(' ').collect();
    let pgid: u32 = words[0].parse().unwrap();
    let dirs: Vec<PathBuf> = words[1..].iter().map(PathBuf::from).collect();
    wait_until(|| live_members(pgid).len() == 3);
    assert_eq!(live_members(pgid).len(), 3, "the shell and its two sleeps");
    assert!(dirs.iter().all(|dir| dir.is_dir()));

    for (index, signal) in signals.iter().enumerate() {
        if index > 0 {
            wait_until(|| hook_file.exists());
        }
        unsafe { libc::kill(child.id() as i32, *signal) };
    }
    wait_until(|| child.try_wait().unwrap().is_some());
    if child.try_wait().unwrap().is_none() {
        child.kill().unwrap();
        panic!("the helper is still running after {signals:?}");
    }
    let status = child.wait().unwrap();
    // SIGKILL is delivered at once, but let the kernel finish tearing the group down.
    wait_until(|| live_members(pgid).is_empty());
    let hook_text = std::fs::read_to_string(&hook_file).unwrap_or_default();
    Outcome {
        code: status.code(),
        pgid,
        dirs,
        hook: hook_text,
    }
}

fn sigterm_kills_the_group_removes_the_directories_and_exits_143() {
    let outcome = interrupt_helper(libc::SIGTERM);
    outcome.assert_clean();
    assert_eq!(outcome.hook, "Terminate");
    assert_eq!(outcome.code, Some(143));
}

fn sigint_kills_the_group_removes_the_directories_and_exits_130() {
    let outcome = interrupt_helper(libc::SIGINT);
    outcome.assert_clean();
    assert_eq!(outcome.hook, "Interrupt");
    assert_eq!(outcome.code, Some(130));
}

fn a_second_signal_exits_at_once_when_the_hook_hangs() {
    let outcome = interrupt_helper_with(&[libc::SIGTERM, libc::SIGINT], true);
    outcome.assert_clean();
    assert_eq!(outcome.hook, "Terminate");
    assert_eq!(outcome.code, Some(130));
}

crate::tests![
    helper_holding_a_group_and_directories,
    sigterm_kills_the_group_removes_the_directories_and_exits_143,
    sigint_kills_the_group_removes_the_directories_and_exits_130,
    a_second_signal_exits_at_once_when_the_hook_hangs,
];
