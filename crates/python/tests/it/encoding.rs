//! PEP 263 source encodings, decided by a real `python3` and written back with the declaration.

use std::path::Path;

use minrepro_python::encoding::{detect, Decoded, EncodingError, SourceEncoding};

/// What `python3` says about a file holding `bytes`.
fn detected(bytes: &[u8]) -> Result<Decoded, EncodingError> {
    let (_dir, file) = minrepro_testkit::temp_file("p.py", bytes);
    detect(bytes, &file, Path::new("python3"))
}

fn latin1(bytes: &[u8]) -> (String, SourceEncoding) {
    match detected(bytes) {
        Ok(Decoded::Other(text, encoding)) => (text, encoding),
        other => panic!("expected a single-byte encoding, got {other:?}"),
    }
}

#[test]
fn a_single_byte_source_round_trips_and_a_lost_declaration_comes_back() {
    let bytes = b"# coding: latin-1\nx = '\xe9'\n";
    let (text, encoding) = latin1(bytes);
    assert_eq!(text, "# coding: latin-1\nx = '\u{e9}'\n");
    assert_eq!(encoding.encode(&text).unwrap(), bytes);
    // The declaration comment removed: it is written back as the first line.
    assert_eq!(encoding.encode("x = '\u{e9}'\n").unwrap(), bytes);
    // ASCII needs no declaration; a character latin-1 lacks cannot be written.
    assert_eq!(encoding.encode("x = 1\n").unwrap(), b"x = 1\n");
    assert!(encoding.encode("x = '\u{20ac}'\n").is_err());
}

#[test]
fn declarations_are_found_where_pep_263_puts_them() {
    let (_, encoding) = latin1(b"#!/usr/bin/python\n# vim: set fileencoding=latin-1 :\nx = 1\n");
    // Line 2 after a comment line declares: nothing is added.
    let kept = "#!/usr/bin/python\n# vim: set fileencoding=latin-1 :\nx = '\u{e9}'\n";
    assert_eq!(encoding.encode(kept).unwrap().len(), kept.len() - 1);
    // Line 2 after code, a declaration without `:`/`=`, or one inside a string do not declare:
    // the declaration is added in front.
    for lost in [
        "x = 1\n# coding: latin-1\ny = '\u{e9}'\n",
        "# coding latin-1\ny = '\u{e9}'\n",
        "x = '# coding: latin-1 \u{e9}'\n",
    ] {
        let bytes = encoding.encode(lost).unwrap();
        let declaration = b"# vim: set fileencoding=latin-1 :\n";
        assert!(bytes.starts_with(declaration), "{lost:?}");
    }
}

#[test]
fn utf8_multibyte_and_undecodable_sources() {
    assert!(matches!(detected(b"x = '\xc3\xa9'\n"), Ok(Decoded::Utf8)));
    assert!(matches!(
        detected(b"# -*- coding: utf-8 -*-\nx = 1\n"),
        Ok(Decoded::Utf8)
    ));
    assert!(matches!(
        detected(b"# coding: shift_jis\nx = '\x82\xa0'\n"),
        Err(EncodingError::Multibyte(_))
    ));
    assert!(matches!(
        detected(b"# coding: no-such-codec\nx = 1\n"),
        Err(EncodingError::Invalid(_))
    ));
    assert!(matches!(
        detected(b"# coding: ascii\nx = '\xe9'\n"),
        Err(EncodingError::Invalid(_))
    ));
}
