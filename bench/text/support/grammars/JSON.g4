// JSON (RFC 8259) for picireny, written for this benchmark: picireny ships no grammar and
// needs one per language. `obj`, not `object`: a Python keyword clash in ANTLR's target.
grammar JSON;

json : value EOF ;

value : obj | array | STRING | NUMBER | 'true' | 'false' | 'null' ;

obj : '{' (pair (',' pair)*)? '}' ;

pair : STRING ':' value ;

array : '[' (value (',' value)*)? ']' ;

STRING : '"' (ESCAPE | ~["\\])* '"' ;
fragment ESCAPE : '\\' ["\\/bfnrtu] ;
NUMBER : '-'? [0-9]+ ('.' [0-9]+)? ([eE] [+-]? [0-9]+)? ;
WS : [ \t\r\n]+ -> skip ;
