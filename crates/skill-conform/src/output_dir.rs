//! Output locations checked before anything runs: a report directory that cannot be written is
//! a usage error at the start, not a failure after the whole suite ran.

use std::path::Path;

use crate::error::Error;

/// Creates `dir` if needed and proves a file can be created in it (the probe is removed).
pub(crate) fn check_writable(dir: &Path, flag: &str) -> Result<(), Error> {
    let refuse = |cause: String| {
        Error::Usage(format!(
            "cannot write reports to `{}`: {cause} (hint: pass {flag} DIR with a writable directory)",
            dir.display()
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| refuse(e.to_string()))?;
    tempfile::Builder::new()
        .prefix(".skill-conform-probe-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| refuse(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_where_the_directory_should_be_is_refused_and_a_new_dir_is_made() {
        let tmp = crate::test_tempdir::tempdir();
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let error = check_writable(&file.join("reports"), "--report-dir").unwrap_err();
        let Error::Usage(message) = error else {
            panic!("a usage error")
        };
        assert!(message.contains("--report-dir DIR"), "{message}");
        let fresh = tmp.path().join("a/b");
        check_writable(&fresh, "--report-dir").unwrap();
        assert_eq!(
            std::fs::read_dir(&fresh).unwrap().count(),
            0,
            "probe removed"
        );
    }
}
