//! The hidden `isolate` exec step, as root (as CI runs): Landlock keeps an isolated child from
//! writing outside its writable directories and, with `--no-net`, from connecting over TCP —
//! restrictions root cannot bypass. On a kernel without Landlock these tests fail unless
//! `SKILL_CONFORM_TEST_NO_LANDLOCK=1` says that is expected.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use skill_conform::isolate::{probe, Isolation, Policy};

/// Runs `sh -c SCRIPT` through `skill-conform isolate` with `options`.
fn isolated_sh(options: &[&str], script: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .arg("isolate")
        .args(options)
        .args(["--", "sh", "-c", script])
        .output()
        .unwrap()
}

/// Whether this kernel enforces the whole policy; panics if it does not and that is unexpected.
fn landlock_enforced(policy: &Policy) -> bool {
    let isolation = probe(policy).unwrap();
    if isolation == Isolation::Full {
        return true;
    }
    assert!(
        std::env::var_os("SKILL_CONFORM_TEST_NO_LANDLOCK").is_some(),
        "isolation is `{isolation}` on this kernel (set SKILL_CONFORM_TEST_NO_LANDLOCK=1 if expected)"
    );
    false
}

fn path_text(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn an_isolated_child_writes_only_to_its_writable_directories() {
    let allowed = crate::common::tempdir();
    let forbidden = crate::common::tempdir();
    let policy = Policy {
        writable: vec![allowed.path().to_owned()],
        deny_tcp: false,
    };
    let enforced = landlock_enforced(&policy);
    let script = format!(
        "echo a > {0}/made && echo b > /dev/null; echo c > {1}/planted; mkdir {1}/dir; rm -f {1}/canary",
        path_text(allowed.path()),
        path_text(forbidden.path()),
    );
    std::fs::write(forbidden.path().join("canary"), "canary").unwrap();
    let output = isolated_sh(&["--write", path_text(allowed.path())], &script);

    assert!(allowed.path().join("made").is_file(), "{output:?}");
    let listing: Vec<_> = std::fs::read_dir(forbidden.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    if enforced {
        assert_eq!(listing, ["canary"], "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("Permission denied"), "{stderr}");
    }
}

fn with_no_net_an_isolated_child_cannot_connect_over_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let policy = Policy {
        writable: Vec::new(),
        deny_tcp: true,
    };
    let enforced = landlock_enforced(&policy);
    // bash's /dev/tcp connects without any other tool.
    let connect = format!("exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'");
    let open = isolated_sh(&[], &connect);
    assert!(open.status.success(), "without --no-net: {open:?}");
    listener.accept().expect("the open child connected");

    let closed = isolated_sh(&["--no-net"], &connect);
    if enforced {
        assert!(!closed.status.success(), "{closed:?}");
        let accepted = listener.accept().map(|_| ()).map_err(|e| e.kind());
        assert_eq!(accepted, Err(ErrorKind::WouldBlock), "a connection arrived");
    }
}

fn probing_leaves_the_calling_thread_unrestricted() {
    let dir = crate::common::tempdir();
    let policy = Policy::default();
    landlock_enforced(&policy);
    std::fs::write(dir.path().join("after-probe"), "x").unwrap();
}

fn a_program_that_cannot_run_is_one_line_and_exit_2() {
    let output = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["isolate", "--", "/nonexistent/program"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot execute `/nonexistent/program`"),
        "{stderr}"
    );
}

crate::tests![
    an_isolated_child_writes_only_to_its_writable_directories,
    with_no_net_an_isolated_child_cannot_connect_over_tcp,
    probing_leaves_the_calling_thread_unrestricted,
    a_program_that_cannot_run_is_one_line_and_exit_2,
];
