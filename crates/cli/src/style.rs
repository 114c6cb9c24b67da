//! Colour for the lines a person reads at the end: the error prefix in red, the success line in
//! green, and only when the stream is a terminal and `NO_COLOR` is unset or empty
//! (<https://no-color.org>), so pipes, logs and scripts get plain text.

use std::io::IsTerminal;

/// A colour of [`paint`].
#[derive(Debug, Clone, Copy)]
pub enum Colour {
    /// Bold red: errors.
    Red,
    /// Bold green: the success line.
    Green,
}

/// Whether output to a stream that `is_terminal` may carry colour codes.
pub fn wanted(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `text` in `colour` when `enabled`, plain otherwise.
pub fn paint(text: &str, colour: Colour, enabled: bool) -> String {
    if !enabled {
        return text.to_owned();
    }
    let code = match colour {
        Colour::Red => "1;31",
        Colour::Green => "1;32",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// Whether stderr gets colour.
pub fn stderr_wanted() -> bool {
    wanted(std::io::stderr().is_terminal())
}

/// Whether stdout gets colour.
pub fn stdout_wanted() -> bool {
    wanted(std::io::stdout().is_terminal())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_unless_enabled() {
        assert_eq!(paint("error:", Colour::Red, false), "error:");
        assert_eq!(
            paint("error:", Colour::Red, true),
            "\x1b[1;31merror:\x1b[0m"
        );
        assert!(!wanted(false));
    }
}
