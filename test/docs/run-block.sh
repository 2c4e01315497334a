# Runs one docs block: the harness, the session's state so far, the block, then the state it leaves.
source "$__DOCS_HARNESS"
if [[ -f $__DOCS_DIR/state.sh ]]; then source "$__DOCS_DIR/state.sh"; fi
# Where the failing command is, as a line of the document (bash's LINENO counts within block.sh).
trap '__docs_status=$?; echo "docs test: exit $__docs_status at $__DOCS_FILE:$((__DOCS_LINE + LINENO - 1)): $(sed -n "${LINENO}p" "$__DOCS_DIR/block.sh")" >&2' ERR
source "$__DOCS_DIR/block.sh"
trap - ERR
__docs_save_state
