//! Comment-only line removal (`without_comment_lines`).

use crate::without_comment_lines;

#[test]
fn comment_only_lines_go_trailing_comments_stay() {
    let source = "# header\nx = 1  # why\n    # indented leftover\ny = 2\n# end";
    assert_eq!(
        without_comment_lines(source).unwrap(),
        "x = 1  # why\ny = 2\n"
    );
}

#[test]
fn annotations_frozen_code_shebang_and_encoding_stay() {
    let source = "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# gone\n\
                  # autodd: freeze-start\n# kept: frozen\nx = 1\n# autodd: end-freeze\n\
                  y = 2  # autodd: freeze\n# coding: late, not a declaration\n";
    assert_eq!(
        without_comment_lines(source).unwrap(),
        "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\
         # autodd: freeze-start\n# kept: frozen\nx = 1\n# autodd: end-freeze\n\
         y = 2  # autodd: freeze\n"
    );
}

#[test]
fn hash_lines_inside_strings_are_not_comments() {
    let source = "s = '''\n# part of the string\n'''\r\n# comment\r\nprint(s)\r\n";
    assert_eq!(
        without_comment_lines(source).unwrap(),
        "s = '''\n# part of the string\n'''\r\nprint(s)\r\n"
    );
}

#[test]
fn invalid_source_gives_none() {
    assert_eq!(without_comment_lines("def f(:\n# c\n"), None);
}
