//! Comment-only line removal (`without_comment_lines`).

use crate::without_comment_lines;

#[test]
fn comment_only_lines_go_and_everything_else_stays() {
    for (what, source, expected) in [
        (
            "trailing comments stay",
            "# header\nx = 1  # why\n    # indented leftover\ny = 2\n# end",
            Some("x = 1  # why\ny = 2\n"),
        ),
        (
            "annotations, frozen code, the shebang and the encoding declaration stay",
            "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# gone\n\
             # autodd: freeze-start\n# kept: frozen\nx = 1\n# autodd: end-freeze\n\
             y = 2  # autodd: freeze\n# coding: late, not a declaration\n",
            Some(
                "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\
                 # autodd: freeze-start\n# kept: frozen\nx = 1\n# autodd: end-freeze\n\
                 y = 2  # autodd: freeze\n",
            ),
        ),
        (
            "hash lines inside strings are not comments",
            "s = '''\n# part of the string\n'''\r\n# comment\r\nprint(s)\r\n",
            Some("s = '''\n# part of the string\n'''\r\nprint(s)\r\n"),
        ),
        ("invalid source gives none", "def f(:\n# c\n", None),
    ] {
        assert_eq!(without_comment_lines(source).as_deref(), expected, "{what}");
    }
}
