//! Text for humans: invisible characters made visible, and line diffs of multi-line strings.
//!
//! # The visible notation
//!
//! One notation, used everywhere the renderer shows a string:
//!
//! | character                               | shown as     |
//! |-----------------------------------------|--------------|
//! | tab U+0009                              | `→`          |
//! | carriage return U+000D                  | `␍`          |
//! | line feed U+000A inside a one-line view | `␊`          |
//! | no-break space U+00A0                   | `⍽`          |
//! | a space at the end of a line            | `·`          |
//! | any other invisible character           | `<U+XXXX>`   |
//! | a literal `→` `␍` `␊` `⍽` `·`           | `<U+XXXX>`   |
//!
//! "Invisible" is: the C0 and C1 controls and DEL, the BOM U+FEFF, U+0085, U+2028, U+2029, the
//! Unicode spaces other than U+0020 (U+2000–U+200A, U+202F, U+205F, U+3000, …), the zero-width
//! and bidi formatting characters (U+200B–U+200F, U+202A–U+202E, U+2060–U+206F, U+061C), the
//! soft hyphen U+00AD, variation selectors, tag characters, and the private-use areas. `XXXX`
//! is upper-case hex, at least four digits. A space is "at the end of a line" when only spaces, and at most one CR,
//! follow it before the line feed or the end of the string.
//!
//! A one-line view of a value (in [`super::inline_value`]) quotes strings and escapes `"` and `\`
//! inside them as JSON does; nothing else is escaped.
//!
//! In a line diff each line is one row; its line feed is the row break, and a last line
//! without one is followed by `\ no newline at end of text`.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

/// Lines of context around each change in a line diff.
pub(crate) const CONTEXT_LINES: usize = 3;

/// `text` on one line: line feeds shown as `␊`, everything else as in [`visible_line`].
pub(crate) fn visible_inline(text: &str) -> String {
    text.split('\n')
        .map(visible_line)
        .collect::<Vec<_>>()
        .join("␊")
}

/// One line (without its line feed) in the visible notation.
pub(crate) fn visible_line(line: &str) -> String {
    let (body, cr) = match line.strip_suffix('\r') {
        Some(body) => (body, true),
        None => (line, false),
    };
    let kept = body.trim_end_matches(' ');
    let trailing = body.len() - kept.len();
    let mut out = String::with_capacity(line.len() + 8);
    for c in kept.chars() {
        push_visible(&mut out, c);
    }
    for _ in 0..trailing {
        out.push('·');
    }
    if cr {
        out.push('␍');
    }
    out
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\t' => out.push('→'),
        '\r' => out.push('␍'),
        '\n' => out.push('␊'),
        '\u{A0}' => out.push('⍽'),
        '→' | '␍' | '␊' | '⍽' | '·' => push_code(out, c),
        c if is_invisible(c) => push_code(out, c),
        c => out.push(c),
    }
}

fn push_code(out: &mut String, c: char) {
    let _ = write!(out, "<U+{:04X}>", u32::from(c));
}

/// Whether `c` prints as nothing, as blank, moves the cursor, or is private use (see the
/// module doc).
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00..=0x1F
            | 0x7F..=0x9F
            | 0xAD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x2000..=0x200F
            | 0x2028..=0x202F
            | 0x205F..=0x206F
            | 0x3000
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
            | 0xE0000..=0xE0FFF
            // Private use: no font draws these the same way, most draw nothing.
            | 0xE000..=0xF8FF
            | 0xF0000..=0xFFFFD
            | 0x100000..=0x10FFFD
    )
}

/// A unified line diff of `expected` against `actual` (`-` expected, `+` actual, ` ` both), with
/// [`CONTEXT_LINES`] lines of context, each line in the visible notation.
pub(crate) fn line_diff(expected: &str, actual: &str) -> String {
    let diff = TextDiff::from_lines(expected, actual);
    let mut out = String::new();
    for hunk in diff
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .iter_hunks()
    {
        let _ = writeln!(out, "{}", hunk.header());
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            let line = change.value();
            let line = line.strip_suffix('\n').unwrap_or(line);
            let _ = writeln!(out, "{sign}{}", visible_line(line));
            if change.missing_newline() {
                out.push_str("\\ no newline at end of text\n");
            }
        }
    }
    out
}

/// The one first-difference finder (the golden-not-canonical note here, `corpus`'s load and
/// prompt differences): the 1-based line and column (in characters) of the first character
/// where two texts differ, or where the shorter ends; `None` when they are equal.
pub(crate) fn first_difference(a: &str, b: &str) -> Option<(usize, usize)> {
    if a == b {
        return None;
    }
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    let at = if a.is_char_boundary(at) { at } else { 0 };
    let before = &a[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_table() {
        let table = [
            ("a\tb", "a→b"),
            ("crlf\r", "crlf␍"),
            ("nb\u{A0}sp", "nb⍽sp"),
            ("\u{FEFF}bom", "<U+FEFF>bom"),
            ("ls\u{2028}ps\u{2029}", "ls<U+2028>ps<U+2029>"),
            ("nel\u{85}", "nel<U+0085>"),
            ("bell\u{7}del\u{7F}", "bell<U+0007>del<U+007F>"),
            ("zw\u{200B}j\u{200D}", "zw<U+200B>j<U+200D>"),
            ("pua\u{E000}\u{F0000}", "pua<U+E000><U+F0000>"),
            ("tail  ", "tail··"),
            ("tail \r", "tail·␍"),
            ("inner space", "inner space"),
            ("literal → · ⍽", "literal <U+2192> <U+00B7> <U+237D>"),
            ("tag\u{E0041}", "tag<U+E0041>"),
            ("é ß 😀", "é ß 😀"),
        ];
        for (input, expected) in table {
            assert_eq!(visible_line(input), expected, "{input:?}");
        }
        assert_eq!(visible_inline("a \nb\r\n"), "a·␊b␍␊");
    }

    #[test]
    fn line_diff_marks_invisibles() {
        let diff = line_diff("a\nb\tc\nd\n", "a\nb c\nd \n");
        assert_eq!(diff, "@@ -1,3 +1,3 @@\n a\n-b→c\n-d\n+b c\n+d·\n");
    }

    #[test]
    fn line_diff_reports_missing_final_newline() {
        assert_eq!(
            line_diff("x\n", "x"),
            "@@ -1 +1 @@\n-x\n+x\n\\ no newline at end of text\n"
        );
    }
}
