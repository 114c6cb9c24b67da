//! `minrepro completions` and `minrepro man`: shell completions and manual pages, generated
//! from the same clap definitions that parse the command line, so they never drift from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::CommandFactory;

/// Command line of `minrepro completions`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Install for bash:  minrepro completions bash > ~/.local/share/bash-completion/completions/minrepro
Install for zsh:   minrepro completions zsh > ~/.zfunc/_minrepro   (with ~/.zfunc on $fpath)
Install for fish:  minrepro completions fish > ~/.config/fish/completions/minrepro.fish")]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Command line of `minrepro man`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
View:     minrepro man | man -l -
Install:  minrepro man --dir ~/.local/share/man/man1")]
pub struct ManArgs {
    /// Print the page of this subcommand (`minrepro-COMMAND(1)`) instead of `minrepro(1)`.
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write every page (`minrepro.1` and one `minrepro-COMMAND.1` per subcommand) into this
    /// existing directory instead of printing one.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Writes the completion script for `args.shell` to `out`.
pub fn completions(args: &CompletionsArgs, out: &mut dyn Write) -> Result<()> {
    let mut command = crate::Cli::command();
    // Generated into memory first: clap_complete panics on a write error (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "minrepro", &mut script);
    out.write_all(&script)
        .context("cannot write the completion script")
}

/// Prints one manual page to `out`, or writes them all into `args.dir`.
pub fn man(args: &ManArgs, out: &mut dyn Write) -> Result<()> {
    let mut command = crate::Cli::command().disable_help_subcommand(true);
    command.build();
    if let Some(dir) = &args.dir {
        return write_pages(command, dir);
    }
    let page = match &args.command {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => bail!(
                "no subcommand {name:?} (one of: {})",
                command
                    .get_subcommands()
                    .map(|s| s.get_name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    clap_mangen::Man::new(page)
        .render(out)
        .context("cannot write the manual page")
}

/// Writes `minrepro.1` and every subcommand's page into `dir`.
fn write_pages(command: clap::Command, dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        bail!("--dir {}: not an existing directory", dir.display());
    }
    clap_mangen::generate_to(command, dir)
        .with_context(|| format!("cannot write manual pages into {}", dir.display()))
}
