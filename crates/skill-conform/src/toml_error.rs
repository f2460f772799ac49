//! The one place a `toml` parse or deserialize error of our three TOML files (`case.toml`,
//! `adapters/ports.toml`, `adapters/<port>/expected.toml`) becomes words: the line from the
//! parser's own span, and its message on one line.

/// What a TOML error says, ready for a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TomlProblem {
    /// 1-based line of the error's span, when the parser gave one.
    pub line: Option<usize>,
    /// The parser's message, trimmed, on one line.
    pub message: String,
}

impl TomlProblem {
    /// The problem of `error`, found in `text`.
    pub fn of(text: &str, error: &toml::de::Error) -> TomlProblem {
        TomlProblem {
            line: error
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1),
            message: error.message().trim().replace('\n', "; "),
        }
    }

    /// `line N: ` (empty without a line).
    pub fn at_line(&self) -> String {
        self.line
            .map(|line| format!("line {line}: "))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_comes_from_the_span() {
        let text = "a = 1\nb = \n";
        let error = text.parse::<toml::Table>().unwrap_err();
        let problem = TomlProblem::of(text, &error);
        assert_eq!(problem.line, Some(2));
        assert_eq!(problem.at_line(), "line 2: ");
        assert!(!problem.message.contains('\n'));
    }
}
