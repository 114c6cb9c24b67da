//! Running `llvm-readobj` and `llvm-objcopy` (through the predicate crate's tool runner, with
//! `--tool-timeout`), and verifying every transformed object.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use minrepro_predicate::{resolve_executable, run_tool, ToolError as RunToolError, ToolRun};

use crate::sections::{escape_for_objcopy, parse_readobj_json, ElfListing};

/// Largest readobj output we accept.
const MAX_TOOL_STDOUT: usize = 256 * 1024 * 1024;

/// Why a tool step failed. Every variant but [`ToolError::Interrupted`] rejects the candidate
/// (or, for the original, stops the run) with the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// SIGINT/SIGTERM arrived while a tool ran.
    #[error("interrupted")]
    Interrupted,
    /// A tool named by `flag` is not an executable on PATH.
    #[error("{flag}: could not find executable {name:?} (or it is not an executable file; section removal needs it)")]
    NotFound {
        /// `--readobj` or `--objcopy`.
        flag: &'static str,
        /// The name given.
        name: String,
    },
    /// The tool ran past `--tool-timeout` (it was killed).
    #[error("{} timed out after {} s (--tool-timeout)", tool.display(), timeout.as_secs_f64())]
    TimedOut {
        /// The tool.
        tool: PathBuf,
        /// The limit.
        timeout: Duration,
    },
    /// The tool could not be started (the message names it).
    #[error("{0}")]
    Launch(String),
    /// The tool exited with a non-zero status.
    #[error("{} exited with status {status}: {stderr}", tool.display())]
    Exited {
        /// The tool.
        tool: PathBuf,
        /// Its exit status (`-signal` for a signal death).
        status: i32,
        /// The head of its stderr, trimmed.
        stderr: String,
    },
    /// The tool printed more than we accept.
    #[error("{}: output too large", tool.display())]
    OutputTooLarge {
        /// The tool.
        tool: PathBuf,
    },
    /// `llvm-readobj` printed something that is not its section JSON.
    #[error("{}: {message}", tool.display())]
    Malformed {
        /// The tool.
        tool: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// The object is not AMDGPU ELF.
    #[error("section reduction requires an AMDGPU ELF object; llvm-readobj reported format {format:?}, arch {arch:?}")]
    NotAmdgpu {
        /// `FileSummary.Format` as reported.
        format: String,
        /// `FileSummary.Arch` as reported.
        arch: String,
    },
    /// A tool file could not be made, written or read.
    #[error("{context}: {message}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The I/O error.
        message: String,
    },
    /// `llvm-objcopy`'s output did not verify (see `verify_removal`).
    #[error("{0}")]
    Unverified(String),
}

/// A [`ToolError::Io`] for `context`.
fn io_error(context: &'static str) -> impl Fn(std::io::Error) -> ToolError {
    move |error| ToolError::Io {
        context,
        message: error.to_string(),
    }
}

/// The resolved tools and where they work.
#[derive(Debug, Clone)]
pub struct ElfTools {
    readobj: PathBuf,
    objcopy: PathBuf,
    timeout: Duration,
    scratch: PathBuf,
    /// Tool runs made and the wall time they took (nanoseconds), for the statistics.
    runs: Arc<AtomicU64>,
    spent: Arc<AtomicU64>,
}

fn resolve_tool(flag: &'static str, name: &str) -> Result<PathBuf, ToolError> {
    resolve_executable(name).map_err(|_| ToolError::NotFound {
        flag,
        name: name.to_owned(),
    })
}

impl ElfTools {
    /// Resolves both tools (through PATH) and checks the timeout; `scratch` holds tool files.
    pub fn new(
        readobj: &str,
        objcopy: &str,
        timeout_secs: f64,
        scratch: PathBuf,
    ) -> Result<Self, ToolError> {
        Ok(ElfTools {
            readobj: resolve_tool("--readobj", readobj)?,
            objcopy: resolve_tool("--objcopy", objcopy)?,
            timeout: Duration::from_secs_f64(timeout_secs),
            scratch,
            runs: Arc::default(),
            spent: Arc::default(),
        })
    }

    /// Tool runs made so far and the wall time they took (summed over parallel runs).
    pub fn time_spent(&self) -> (u64, Duration) {
        let nanos = self.spent.load(Ordering::Relaxed);
        (
            self.runs.load(Ordering::Relaxed),
            Duration::from_nanos(nanos),
        )
    }

    /// Runs a tool in `cwd`; returns its stdout, or an error with its stderr.
    fn run(&self, program: &Path, args: &[OsString], cwd: &Path) -> Result<Vec<u8>, ToolError> {
        let started = Instant::now();
        let output = run_tool(&ToolRun {
            program,
            args,
            cwd,
            timeout: self.timeout,
            max_stdout: MAX_TOOL_STDOUT,
            hide_cwd: true,
            cleanup: false,
        });
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.spent.fetch_add(nanos, Ordering::Relaxed);
        self.runs.fetch_add(1, Ordering::Relaxed);
        let tool = program.to_path_buf();
        let output = output.map_err(|error| match error {
            RunToolError::Interrupted => ToolError::Interrupted,
            RunToolError::TimedOut { timeout, .. } => ToolError::TimedOut {
                tool: tool.clone(),
                timeout,
            },
            RunToolError::Launch(text) => ToolError::Launch(text),
        })?;
        match output.code {
            0 if output.stdout_truncated => Err(ToolError::OutputTooLarge { tool }),
            0 => Ok(output.stdout),
            status => Err(ToolError::Exited {
                tool,
                status,
                stderr: output.stderr.head.trim().to_owned(),
            }),
        }
    }

    fn scratch_dir(&self) -> Result<tempfile::TempDir, ToolError> {
        tempfile::Builder::new()
            .prefix("tool-")
            .tempdir_in(&self.scratch)
            .map_err(io_error("cannot create a tool directory"))
    }

    /// Lists the sections of `file` (run in `dir`) and checks it is AMDGPU ELF.
    fn list_in(&self, dir: &Path, file: &str) -> Result<ElfListing, ToolError> {
        let args: Vec<OsString> = vec![
            "--elf-output-style=JSON".into(),
            "--sections".into(),
            file.into(),
        ];
        let stdout = self.run(&self.readobj, &args, dir)?;
        let listing = parse_readobj_json(&stdout).map_err(|e| ToolError::Malformed {
            tool: self.readobj.clone(),
            message: e.to_string(),
        })?;
        if !listing.is_amdgpu_elf() {
            return Err(ToolError::NotAmdgpu {
                format: listing.format,
                arch: listing.arch,
            });
        }
        Ok(listing)
    }

    /// Lists the sections of an in-memory object; it must be AMDGPU ELF.
    pub fn list_bytes(&self, bytes: &[u8]) -> Result<ElfListing, ToolError> {
        let dir = self.scratch_dir()?;
        std::fs::write(dir.path().join("object.co"), bytes)
            .map_err(io_error("cannot write a tool input"))?;
        self.list_in(dir.path(), "object.co")
    }

    /// Removes the sections named `names` (escaped for objcopy's globbing) and verifies the
    /// result against `before`: still AMDGPU ELF, every named section gone, nothing else lost.
    pub fn remove_sections(
        &self,
        bytes: &[u8],
        before: &ElfListing,
        names: &[String],
    ) -> Result<(Vec<u8>, ElfListing), ToolError> {
        let dir = self.scratch_dir()?;
        std::fs::write(dir.path().join("in.co"), bytes).map_err(io_error("tool file"))?;
        let mut args: Vec<OsString> = names
            .iter()
            .map(|n| format!("--remove-section={}", escape_for_objcopy(n)).into())
            .collect();
        args.push("in.co".into());
        args.push("out.co".into());
        self.run(&self.objcopy, &args, dir.path())?;
        let output = std::fs::read(dir.path().join("out.co"))
            .map_err(io_error("objcopy wrote no output"))?;
        let after = self.list_in(dir.path(), "out.co")?;
        verify_removal(before, &after, names).map_err(ToolError::Unverified)?;
        Ok((output, after))
    }
}

/// Checks a transformed listing: every name in `removed` is gone and every other section of
/// `before` is still present (as many instances as before).
pub(crate) fn verify_removal(
    before: &ElfListing,
    after: &ElfListing,
    removed: &[String],
) -> Result<(), String> {
    if !after.is_amdgpu_elf() {
        return Err("the transformed object is no longer AMDGPU ELF".into());
    }
    let count = |listing: &ElfListing, name: &str| {
        listing.sections.iter().filter(|s| s.name == name).count()
    };
    let still: Vec<&String> = removed.iter().filter(|n| count(after, n) > 0).collect();
    if !still.is_empty() {
        let names: Vec<&str> = still.iter().map(|n| n.as_str()).collect();
        return Err(format!(
            "llvm-objcopy output verification failed: requested sections remain: {}",
            names.join(", ")
        ));
    }
    let mut lost: Vec<&str> = Vec::new();
    for section in &before.sections {
        let name = section.name.as_str();
        if !removed.iter().any(|r| r == name)
            && count(after, name) < count(before, name)
            && !lost.contains(&name)
        {
            lost.push(name);
        }
    }
    if !lost.is_empty() {
        lost.sort_unstable();
        return Err(format!(
            "llvm-objcopy output verification failed: unrequested sections disappeared: {}",
            lost.join(", ")
        ));
    }
    Ok(())
}
