#!/bin/sh
# expect_exit.sh CODE COMMAND...: runs COMMAND and fails unless it exits with exactly CODE
# (a crash by signal exits with 128+N and fails too). Output passes through.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect_exit.sh: '$*' exited with $got, expected $want" >&2
  exit 1
fi
exit 0
