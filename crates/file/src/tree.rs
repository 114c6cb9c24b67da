//! The test case of `minrepro file`: one or more files under relative names (a single file, a
//! list of files, or directory trees), text files reduced and binary files kept byte for byte or
//! removed whole.

use std::borrow::Cow;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::lex::Syntax;

pub use minrepro_text::{latin1_bytes, Content, Doc};

/// Least share of ASCII text bytes (printable, tab, line breaks, form feed) in a file that is
/// not UTF-8 for it to be read as latin-1 text: text in a single-byte encoding is mostly
/// ASCII, binary data is not.
const MIN_ASCII_SHARE: f64 = 0.9;

/// What a file of `bytes` holds.
fn content_of(bytes: Vec<u8>) -> Content {
    if bytes.contains(&0) {
        return Content::Binary(Arc::new(bytes));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Content::Text(text),
        Err(e) => {
            let bytes = e.into_bytes();
            let ascii = bytes
                .iter()
                .filter(|&&b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '..=b'~'))
                .count();
            if ascii as f64 >= MIN_ASCII_SHARE * bytes.len() as f64 {
                Content::Latin1(minrepro_text::latin1_text(&bytes))
            } else {
                Content::Binary(Arc::new(bytes))
            }
        }
    }
}

/// One file of the case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct File {
    /// Relative path inside a candidate directory (`/`-separated, no `..`).
    pub name: String,
    /// The content.
    pub content: Content,
}

impl File {
    /// The file's syntax (by its name).
    pub fn syntax(&self) -> Syntax {
        Syntax::for_path(Path::new(&self.name))
    }

    /// The text, if it is a text file.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text(text) | Content::Latin1(text) => Some(text),
            Content::Binary(_) => None,
        }
    }

    /// The bytes to write.
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.content {
            Content::Text(text) => Cow::Borrowed(text.as_bytes()),
            Content::Latin1(text) => Cow::Owned(latin1_bytes(text)),
            Content::Binary(bytes) => Cow::Borrowed(bytes),
        }
    }
}

/// The files of a case, in a fixed order (inputs in command-line order, directory entries
/// sorted by name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tree {
    /// The files.
    pub files: Vec<File>,
}

/// Why the inputs cannot be reduced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A path could not be read.
    #[error("cannot read {path}: {message}")]
    Unreadable {
        /// The path.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// Nothing to reduce: every file is empty (or a directory holds no file).
    #[error("{0}: nothing to reduce (empty)")]
    Empty(String),
    /// The only inputs are binary files.
    #[error(
        "{0} is not a text file (NUL bytes, or mostly bytes that are neither ASCII nor UTF-8); \
         minrepro file reduces text"
    )]
    Binary(String),
    /// Two inputs map to the same relative name.
    #[error("two inputs would both be {0} in a candidate directory")]
    Duplicate(String),
}

/// Where an input file came from and the relative name it gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file on disk.
    pub path: PathBuf,
    /// Its relative name in candidate directories and outputs.
    pub name: String,
}

/// A path's relative name: the path itself when it is relative and stays below the current
/// directory, else its last component.
fn relative_name(path: &Path) -> String {
    let plain = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let parts: Vec<String> = if plain {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    } else {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let normal: PathBuf = absolute.components().collect();
        vec![normal
            .file_name()
            .map_or_else(|| "input".into(), |n| n.to_string_lossy().into_owned())]
    };
    parts.join("/")
}

/// The regular files below `dir`, sorted, with their names below `prefix`.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<Origin>) -> Result<(), InputError> {
    let unreadable = |e: std::io::Error| InputError::Unreadable {
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    let mut entries: Vec<_> = fs::read_dir(dir)
        .map_err(unreadable)?
        .collect::<Result<_, _>>()
        .map_err(unreadable)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let kind = entry.file_type().map_err(unreadable)?;
        let name = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        if kind.is_dir() {
            walk(&entry.path(), &name, out)?;
        } else if kind.is_file() {
            out.push(Origin {
                path: entry.path(),
                name,
            });
        }
    }
    Ok(())
}

/// The input files named on the command line (directories walked), with their relative names.
pub fn origins(inputs: &[PathBuf]) -> Result<Vec<Origin>, InputError> {
    let mut out = Vec::new();
    for input in inputs {
        let meta = fs::metadata(input).map_err(|e| InputError::Unreadable {
            path: input.display().to_string(),
            message: e.to_string(),
        })?;
        let name = relative_name(input);
        if meta.is_dir() {
            let before = out.len();
            walk(input, &name, &mut out)?;
            if out.len() == before {
                return Err(InputError::Empty(input.display().to_string()));
            }
        } else {
            out.push(Origin {
                path: input.clone(),
                name,
            });
        }
    }
    let mut names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(InputError::Duplicate(w[0].to_owned()));
    }
    Ok(out)
}

/// Reads the files of `origins` into a tree; refuses inputs with nothing to reduce.
pub fn load(origins: &[Origin]) -> Result<Tree, InputError> {
    let mut files = Vec::new();
    for origin in origins {
        let bytes = fs::read(&origin.path).map_err(|e| InputError::Unreadable {
            path: origin.path.display().to_string(),
            message: e.to_string(),
        })?;
        files.push(File {
            name: origin.name.clone(),
            content: content_of(bytes),
        });
    }
    let tree = Tree { files };
    let all = || {
        origins
            .iter()
            .map(|o| o.path.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if tree.files.iter().all(|f| f.text().is_none()) {
        return Err(InputError::Binary(all()));
    }
    if tree.files.iter().all(|f| f.bytes().is_empty()) {
        return Err(InputError::Empty(all()));
    }
    Ok(tree)
}

impl Tree {
    /// A tree of text files (name, text), for tests.
    #[cfg(test)]
    pub(crate) fn of_texts(files: &[(&str, &str)]) -> Tree {
        Tree {
            files: files
                .iter()
                .map(|(name, text)| File {
                    name: (*name).into(),
                    content: Content::Text((*text).into()),
                })
                .collect(),
        }
    }

    /// The same files, every one empty: the most trivial candidate there is, which a test that
    /// checks for the failure itself rejects.
    pub fn emptied(&self) -> Tree {
        Tree {
            files: self
                .files
                .iter()
                .map(|f| File {
                    name: f.name.clone(),
                    content: Content::Text(String::new()),
                })
                .collect(),
        }
    }

    /// The files as the text layer's documents.
    pub fn docs(&self) -> Vec<Doc> {
        self.files
            .iter()
            .map(|f| Doc {
                name: f.name.clone(),
                content: f.content.clone(),
            })
            .collect()
    }

    /// The tree of `docs`.
    pub fn of_docs(docs: Vec<Doc>) -> Tree {
        Tree {
            files: docs
                .into_iter()
                .map(|d| File {
                    name: d.name,
                    content: d.content,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_testkit::{temp_file, temp_path};

    #[test]
    fn names_are_relative_and_directories_are_walked_in_order() {
        let (dir, root) = temp_path("src");
        fs::create_dir_all(root.join("b")).unwrap();
        fs::write(root.join("z.c"), "int z;\n").unwrap();
        fs::write(root.join("b/a.h"), "int a;\n").unwrap();
        fs::write(root.join("blob.bin"), b"\x00\x01").unwrap();
        let found = origins(std::slice::from_ref(&root)).unwrap();
        let names: Vec<&str> = found.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["src/b/a.h", "src/blob.bin", "src/z.c"]);
        let tree = load(&found).unwrap();
        assert!(matches!(tree.files[1].content, Content::Binary(_)));
        let text = minrepro_text::join_docs(&tree.docs());
        assert_eq!(Tree::of_docs(minrepro_text::split_docs(&text, "")), tree);
        assert_eq!(relative_name(Path::new("./x/y.c")), "x/y.c");
        assert_eq!(relative_name(Path::new("../y.c")), "y.c");
        assert_eq!(&*tree.files[1].bytes(), b"\x00\x01");
        drop(dir);
    }

    #[test]
    fn text_that_is_not_utf8_is_read_as_latin1_and_written_back_as_it_was() {
        let bytes = b"int caf\xe9;\r\n/* \xa9 1999 */\n".to_vec();
        let content = content_of(bytes.clone());
        let Content::Latin1(text) = &content else {
            panic!("{content:?}");
        };
        assert_eq!(text, "int caf\u{e9};\r\n/* \u{a9} 1999 */\n");
        let file = File {
            name: "a.c".into(),
            content: content.with_text(text.replace(" 1999", "")),
        };
        assert_eq!(&*file.bytes(), b"int caf\xe9;\r\n/* \xa9 */\n");
        // A character latin-1 lacks (from an inlined UTF-8 header) is written as UTF-8.
        let mixed = content.with_text("\u{e9}\u{20ac}".into());
        let mixed = File {
            name: "a.c".into(),
            content: mixed,
        };
        assert_eq!(&*mixed.bytes(), b"\xe9\xe2\x82\xac");
        assert_eq!(
            content_of(b"caf\xc3\xa9".to_vec()),
            Content::Text("caf\u{e9}".into())
        );
        assert!(matches!(
            content_of(vec![0xff, 0xfe, b'a']),
            Content::Binary(_)
        ));
        assert!(matches!(content_of(b"a\0b".to_vec()), Content::Binary(_)));
    }

    #[test]
    fn refuses_binary_empty_and_missing_inputs() {
        let (dir, bin) = temp_file("a.bin", [0xff, 0xfe]);
        let empty = dir.path().join("e.txt");
        fs::write(&empty, "").unwrap();
        let load_one = |p: &Path| load(&origins(&[p.to_path_buf()])?);
        assert!(matches!(load_one(&bin), Err(InputError::Binary(_))));
        assert!(matches!(load_one(&empty), Err(InputError::Empty(_))));
        let missing = load_one(&dir.path().join("nope"));
        assert!(matches!(missing, Err(InputError::Unreadable { .. })));
    }
}
