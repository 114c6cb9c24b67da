#!/bin/sh
# Files left in the user's TMPDIR by killed predicate runs (issue 38, item 2):
#   bench/resume/tmpdir.sh MINREPRO
# A `-j 4` `minrepro file` on examples/file/ring.c whose test holds a `mktemp` file and compiles
# with gcc into $TMPDIR (removed only when it ends normally), once to the end (speculative runs
# are cancelled), once SIGINTed after 1 s and once SIGKILLed after 1 s; prints what each left.
set -u
bin=$(realpath "$1")
root=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
cat > "$work/test.sh" <<TEST
#!/bin/sh
t=\$(mktemp) || exit 3
gcc -c ring.c -o "\$t.o" 2>/dev/null
sleep 0.1
LC_ALL=C gcc -fsyntax-only ring.c 2>&1 | grep -q "has no member named .weight."
s=\$?
rm -f "\$t" "\$t.o"
exit \$s
TEST
chmod +x "$work/test.sh"
left() { find "$work/tmp" -mindepth 1 | wc -l; }
TMPDIR=$work/tmp "$bin" file -q -j 4 "$work/test.sh" "$root/examples/file/ring.c" -o "$work/whole.c"
echo "whole run: $(left) files left"
for signal in INT KILL; do
  TMPDIR=$work/tmp "$bin" file -q -j 4 "$work/test.sh" "$root/examples/file/ring.c" -o "$work/$signal.c" &
  pid=$!
  sleep 1
  kill -s "$signal" "$pid"
  wait "$pid" 2>/dev/null
  sleep 1 # the guardian's clean-up after a SIGKILL
  echo "after SIG$signal too: $(left) files left"
done
