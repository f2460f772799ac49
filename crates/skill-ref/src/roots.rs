//! Roots: absolutised and lexically normalised, never resolved through symlinks (`TN-IN-1`).

use std::path::{Component, Path, PathBuf};

/// Makes `root` absolute against `cwd` and removes `.` and `..` lexically.
///
/// Symlinks are not resolved: `location` is the path as discovered, so a root that is a symlink
/// keeps its own spelling. A `..` at the filesystem root stays at the root.
pub fn normalize_root(root: &Path, cwd: &Path) -> PathBuf {
    let joined = if root.is_absolute() {
        root.to_path_buf()
    } else {
        cwd.join(root)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolutises_and_removes_dot_segments_lexically() {
        let cwd = Path::new("/srv/here");
        assert_eq!(
            normalize_root(Path::new("skills"), cwd),
            Path::new("/srv/here/skills")
        );
        assert_eq!(
            normalize_root(Path::new("/t/x/../x/./y/"), cwd),
            Path::new("/t/x/y")
        );
        assert_eq!(
            normalize_root(Path::new("../up"), cwd),
            Path::new("/srv/up")
        );
        assert_eq!(normalize_root(Path::new("/../a"), cwd), Path::new("/a"));
    }
}
