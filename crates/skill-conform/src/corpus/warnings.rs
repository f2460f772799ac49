//! The reference walk's problems under the roots as `corpus` warnings: unreadable folders,
//! links that cannot be followed, names that are not UTF-8. They come from the reference's own
//! walk ([`skill_ref::walk::Walker::problems`]), not a second one, so they name exactly what
//! the reference read less of; sorted by path bytes, each once.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use skill_ref::walk::WalkProblem;

use super::{WalkWarning, WalkWarningKind};
use crate::normalize::Redactions;

/// `path`'s bytes as text: valid UTF-8 as it is, every other byte as `\xNN`.
pub fn escaped(path: &Path) -> String {
    let mut out = String::new();
    for chunk in path.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

/// The warnings for `problems`, their paths redacted against `roots`.
pub fn walk_warnings(problems: &[WalkProblem], roots: &[String]) -> Vec<WalkWarning> {
    let redactions = Redactions::for_roots(roots);
    problems
        .iter()
        .map(|problem| {
            let (kind, error) = match problem {
                WalkProblem::UnreadableDir { error, .. } => {
                    (WalkWarningKind::UnreadableFolder, Some(error.clone()))
                }
                WalkProblem::UnfollowableLink { error, .. } => {
                    (WalkWarningKind::UnfollowableLink, Some(error.clone()))
                }
                WalkProblem::NotUtf8 { .. } => (WalkWarningKind::NotUtf8Name, None),
            };
            WalkWarning {
                kind,
                location: redactions.redact_str(&escaped(problem.path())),
                error,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn paths_are_redacted_and_bad_bytes_escaped() {
        let path = Path::new(OsStr::from_bytes(b"/r/caf\xe9/SKILL.md"));
        assert_eq!(escaped(path), "/r/caf\\xE9/SKILL.md");
        let warnings = walk_warnings(
            &[WalkProblem::NotUtf8 {
                path: path.to_path_buf(),
            }],
            &["/r".to_owned()],
        );
        assert_eq!(warnings[0].location, "{root0}/caf\\xE9/SKILL.md");
        assert_eq!(warnings[0].kind, WalkWarningKind::NotUtf8Name);
    }
}
