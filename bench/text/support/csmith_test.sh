# Sourced by the csmith cases' tests (C-Reduce's convention for csmith programs): prog.c must
# compile with gcc -O1 -Wall -Wextra, without any warning that marks an ill-formed or undefined
# program (the list below; division by zero is left out: csmith without safe math writes
# some), and gcc must still warn about $CONSTRUCT (the construct the case keeps).
timeout 20 gcc -std=gnu99 -O1 -Wall -Wextra -c prog.c -o prog.o > gcc.log 2>&1 || exit 1
if grep -qiE 'uninitiali|control reaches end|return type defaults|implicit declaration|incompatible|makes pointer from|makes integer from|excess elements|too few arguments|too many arguments|no return statement|discards .*qualifier|useless type|declared .static. but never defined|will never be executed|undefined behavior|type defaults to|-Wimplicit-int|data definition has no type|-Wreturn-type|-Wmain|-Wformat' gcc.log; then
    exit 1
fi
grep -qF -- "$CONSTRUCT" gcc.log
