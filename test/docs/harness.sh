# The shell functions every docs block runs with (see test/docs/docs.test.ts for the conventions).
set -euo pipefail
__DOCS_MARK='@@docs-http-status:'

curl() {
  local arg silent=""
  for arg in "$@"; do
    if [[ $arg == --silent || $arg =~ ^-[a-zA-Z]*s[a-zA-Z]*$ ]]; then silent=1; fi
  done
  if [[ -z $silent ]]; then
    echo "docs test: curl without -s (its progress meter would mix into what the reader sees): curl $*" >&2
    return 2
  fi
  local file rc=0 status="" size tail_text
  file=$(mktemp "$__DOCS_DIR/curl.XXXXXX")
  command curl -w "\n$__DOCS_MARK%{http_code}" "$@" >"$file" || rc=$?
  size=$(wc -c <"$file")
  tail_text=$(tail -c 40 "$file")
  if [[ $tail_text == *"$__DOCS_MARK"* ]]; then
    status=${tail_text##*"$__DOCS_MARK"}
    head -c "$((size - ${#__DOCS_MARK} - ${#status} - 1))" "$file"
  else
    cat "$file"
  fi
  rm -f "$file"
  if [[ $rc -ne 0 ]]; then return "$rc"; fi
  if [[ -n ${__DOCS_EXPECT_STATUS:-} ]]; then
    echo "$status" >>"$__DOCS_SEEN"
    if [[ $status != "$__DOCS_EXPECT_STATUS" ]]; then
      echo "docs test: expected HTTP $__DOCS_EXPECT_STATUS, the server answered ${status:-nothing we could read}: curl $*" >&2
      return 22
    fi
  elif [[ -n $status && $status -ge 400 ]]; then
    echo "docs test: HTTP $status (add \"# expect: $status\" above the command if that is the point): curl $*" >&2
    return 22
  fi
}

__docs_expect_status() {
  local expected=$1 rc=0 seen
  shift
  : >"$__DOCS_SEEN"
  __DOCS_EXPECT_STATUS=$expected "$@" || rc=$?
  seen=$(wc -l <"$__DOCS_SEEN")
  if [[ $rc -eq 0 && $seen -eq 0 ]]; then
    echo "docs test: \"# expect: $expected\" but the command made no curl request: $*" >&2
    return 1
  fi
  return "$rc"
}

__docs_expect_exit() {
  local expected=$1 rc=0
  shift
  "$@" || rc=$?
  if [[ $rc -ne $expected ]]; then
    echo "docs test: expected exit $expected, got $rc: $*" >&2
    return $(( rc == 0 ? 1 : rc ))
  fi
}

__docs_save_state() {
  local name
  {
    for name in $(compgen -v); do
      if [[ $name =~ ^(BASH.*|_.*|PIPESTATUS|OLDPWD|PWD|LINENO|RANDOM|SRANDOM|SECONDS|EPOCH.*|FUNCNAME|GROUPS|COMP.*|HIST.*|LINES|COLUMNS|SHLVL|OPTIND|OPTERR|IFS|PS[0-9]|UID|EUID|PPID|SHELLOPTS|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|DIRSTACK)$ ]]; then continue; fi
      if grep -qxF "$name" "$__DOCS_DIR/env-names"; then continue; fi
      declare -p "$name"
    done
    for name in $(compgen -A function); do
      if [[ $name == curl || $name == __docs_* ]]; then continue; fi
      declare -f "$name"
    done
    printf 'cd %q\n' "$PWD"
  } >"$__DOCS_DIR/state.next"
  mv "$__DOCS_DIR/state.next" "$__DOCS_DIR/state.sh"
}
