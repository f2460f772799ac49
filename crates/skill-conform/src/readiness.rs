//! `skill-conform ports`: every port and whether it can run now, told without side effects.
//!
//! Listing runs only the toolchain probes and reads the set-up memory
//! ([`crate::setup_memory`]); it runs no set-up, starts no adapter and writes nothing. Each
//! port is in one of three states ([`ReadinessState`], in the README's vocabulary table):
//!
//! - `ready`: a set-up of the pinned version succeeded and is remembered for the same set-up
//!   command and probe output (or the port has no set-up);
//! - `toolchain present, not set up`: the probes pass and no set-up is remembered; the line
//!   gives the command that sets it up;
//! - `unavailable`: a probe failed, or a set-up failed and is remembered, with the reason.
//!
//! `skill-conform ports --setup [NAME…]` runs the set-up of the named ports (every port without
//! a name), trying a remembered failure again, then lists them.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Error;
use crate::port::{self, PortRequest, PortSpec, REFERENCE};

/// What `ports` says of one port.
#[derive(Clone, Debug, PartialEq, Eq, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(ReadinessState),
    derive(strum::EnumIter),
    doc = "A [`Readiness`] without its data: the state the vocabulary table names."
)]
pub(crate) enum Readiness {
    Ready,
    /// The probes pass (`probed`: there are probes) and no set-up is remembered.
    NotSetUp {
        probed: bool,
    },
    Unavailable {
        reason: String,
    },
}

impl ReadinessState {
    /// Every state, enumerated by the compiler.
    pub fn all() -> impl Iterator<Item = ReadinessState> {
        <ReadinessState as strum::IntoEnumIterator>::iter()
    }

    /// The state's word in `skill-conform ports`.
    pub fn word(self) -> &'static str {
        match self {
            ReadinessState::Ready => "ready",
            ReadinessState::NotSetUp => "toolchain present, not set up",
            ReadinessState::Unavailable => "unavailable",
        }
    }

    /// What the state means, for the vocabulary table.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            ReadinessState::Ready => {
                "a set-up of the pinned version succeeded, remembered for the same set-up command and probe output"
            }
            ReadinessState::NotSetUp => {
                "the probes pass and no set-up is remembered; `skill-conform ports --setup NAME` sets it up (a port without probes says `not set up, toolchain not checked`)"
            }
            ReadinessState::Unavailable => {
                "a probe failed, or a set-up failed and is remembered; with the reason"
            }
        }
    }
}

impl Readiness {
    /// The state's word, then what to do or why.
    pub fn line(&self, port: &str) -> String {
        let word = ReadinessState::from(self).word();
        match self {
            Readiness::Ready => word.to_owned(),
            Readiness::NotSetUp { probed: true } => {
                format!("{word} (set up with: skill-conform ports --setup {port})")
            }
            // Nothing was checked, so the line does not say the toolchain is present.
            Readiness::NotSetUp { probed: false } => format!(
                "not set up, toolchain not checked (it has no probe; `skill-conform ports --setup {port}` checks it and says what is missing)"
            ),
            Readiness::Unavailable { reason } => format!("{word}: {reason}"),
        }
    }
}

/// The readiness of port `name` at its pinned version, from its probes and the set-up memory
/// under `repo` alone.
pub(crate) fn readiness(name: &str, spec: &PortSpec, repo: &Path) -> Readiness {
    let probes = match port::probe_all(spec) {
        Ok(probes) => probes,
        Err(reason) => return Readiness::Unavailable { reason },
    };
    let key = port::setup_key(spec, &spec.version, &probes);
    if let Some(reason) = crate::setup_memory::remembered_failure(repo, name, &key) {
        return Readiness::Unavailable { reason };
    }
    if spec.setup.is_empty() || crate::setup_memory::succeeded(repo, name, &key) {
        return Readiness::Ready;
    }
    Readiness::NotSetUp {
        probed: !spec.probe.is_empty(),
    }
}

/// `skill-conform ports [--setup [NAME…]]`: with `setup`, sets those ports up (all when the list
/// is empty); then the table of every port and its readiness.
pub fn ports(repo: &Path, setup: Option<&[String]>) -> Result<String, Error> {
    let repo = &crate::plan::canonical_repo(repo)?;
    let specs = port::read_ports(repo)?;
    if let Some(names) = setup {
        set_up(repo, &specs, names)?;
    }
    let mut out = String::new();
    let row = |out: &mut String, name: &str, language: &str, pinned: &str, state: &str| {
        out.push_str(&format!("{name:<10} {language:<22} {pinned:<9} {state}\n"));
    };
    row(&mut out, "port", "language", "pinned", "status");
    let built_in = format!("{} (built in)", ReadinessState::Ready.word());
    row(&mut out, REFERENCE, "Rust (skill-ref)", "-", &built_in);
    for (name, spec) in &specs {
        let mut state = readiness(name, spec, repo).line(name);
        if !spec.tested {
            state.push_str(" (adapter untested)");
        }
        row(&mut out, name, &spec.language, &spec.version, &state);
    }
    Ok(out)
}

/// Sets up `names` (every port when empty) at their pinned versions, trying a remembered
/// failure again; the outcome is remembered for the listing that follows.
fn set_up(repo: &Path, specs: &BTreeMap<String, PortSpec>, names: &[String]) -> Result<(), Error> {
    let requests: Vec<PortRequest> = if names.is_empty() {
        specs.keys().map(|name| named(name)).collect()
    } else {
        names.iter().map(|name| named(name)).collect()
    };
    for request in &requests {
        if request.name() == REFERENCE {
            return Err(Error::Usage(
                "--setup names `reference`, which is built in and needs no set-up (hint: leave it out)"
                    .to_owned(),
            ));
        }
        port::check_known(request, specs)?;
    }
    crate::setup_memory::retry_every_setup();
    let (_home, home) = crate::sandbox::plain_tempdir("skill-conform-home-")
        .map_err(|e| Error::Usage(e.to_string()))?;
    for request in &requests {
        eprintln!("{}: setting up…", request.name());
        if let port::Resolved::Unavailable { name, reason } =
            port::resolve(request, specs, repo, &home)
        {
            eprintln!("{name}: set-up failed: {reason}");
        }
    }
    Ok(())
}

fn named(name: &str) -> PortRequest {
    PortRequest::Named {
        name: name.to_owned(),
        version: None,
        path: None,
    }
}

#[cfg(test)]
mod tests {
    use super::Readiness;

    #[test]
    fn a_port_without_probes_is_never_said_to_have_its_toolchain() {
        let unchecked = Readiness::NotSetUp { probed: false }.line("csharp");
        assert!(!unchecked.contains("present"), "{unchecked}");
        assert!(
            unchecked.contains("skill-conform ports --setup csharp"),
            "{unchecked}"
        );
        let probed = Readiness::NotSetUp { probed: true }.line("golang");
        assert!(
            probed.starts_with("toolchain present, not set up"),
            "{probed}"
        );
    }
}
