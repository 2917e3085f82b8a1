# Shared by the bench/run_*.sh scripts (sourced).

# best CMD...: the best wall-clock time of 5 runs of CMD, in seconds (its output discarded).
best() {
  local b=999
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    b=$(echo "$b $s $e" | awk '{d=$3-$2; print (d<$1)?d:$1}')
  done
  echo "$b"
}
