#!/usr/bin/env bash
# wisp-tui in a real terminal, by script: builds wisp and wisp-tui, runs
# wisp-tui in a detached tmux session (a tmux server of its own, on its own
# socket) on the bundled scripted models, sends the keys a person would,
# and prints the captured panes to stdout.
#
#   scripts/tui-demo.sh            both demos
#   scripts/tui-demo.sh ask        the ask question only
#   scripts/tui-demo.sh ask_user   the ask_user card, then request_approval
#
# Needs tmux and Go. Nothing outside a temporary folder is written: wisp's
# home (WISP_HOME) is there too. cmd/wisp-tui's TestTmuxScripted does the
# same and checks the panes.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "tui-demo: tmux is not on PATH" >&2; exit 2; }

work=$(mktemp -d)
sock= # the current demo's tmux server
cleanup() {
  for s in "$work"/*.sock; do
    [ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/wisp" ./cmd/wisp
go build -o "$work/wisp-tui" ./cmd/wisp-tui
mkdir "$work/home"
examples=examples/scripts # wisp-tui runs in the repository's folder

# start NAME ARGS...: runs wisp-tui with ARGS in session "tui", 100x32, of
# a tmux server of its own (socket NAME.sock).
start() {
  sock="$work/$1.sock"
  shift
  local cmd="WISP_HOME='$work/home' '$work/wisp-tui' --wisp '$work/wisp'"
  for a in "$@"; do cmd+=" '$a'"; done
  tmux -S "$sock" -f /dev/null new-session -d -s tui -x 100 -y 32 -c "$PWD" \
    "$cmd; echo \"wisp-tui exited with status \$?\"; sleep 60"
}

pane() { tmux -S "$sock" capture-pane -p -t tui; }
keys() { tmux -S "$sock" send-keys -t tui "$@"; }
type_text() { tmux -S "$sock" send-keys -t tui -l "$1"; }

# wait_for TEXT: until the pane shows TEXT (10 s at most).
wait_for() {
  for _ in $(seq 200); do
    if pane | grep -qF -- "$1"; then return 0; fi
    sleep 0.05
  done
  echo "tui-demo: the pane never showed: $1" >&2
  pane >&2
  exit 1
}

# show TITLE: prints the pane under a heading.
show() {
  printf '\n==== %s ====\n' "$1"
  pane | sed -e 's/[[:space:]]*$//' | cat -s
}

# A dialog ignores answering keys for 0.3 s after it opens.
guard() { sleep 0.4; }

demo_ask() {
  start ask --model "script:$examples/ask.jsonl" --tool ask
  wait_for "Enter sends"
  type_text "Replace the config with the new defaults."
  keys Enter
  wait_for "? the model asks"
  guard
  keys Down
  wait_for "› 2 ./wisp.json"
  show "ask: the model's question (Down pressed once)"
  keys Enter
  wait_for "I will replace the config"
  wait_for "Enter sends" # the turn has ended
  show "ask: after Enter"
  keys C-d
  wait_for "wisp-tui exited with status"
  show "ask: after Ctrl-D"
}

demo_ask_user() {
  start ask_user --model "script:$examples/ask_user.jsonl" --tool ask_user --tool request_approval
  wait_for "Enter sends"
  type_text "Run the migration."
  keys Enter
  wait_for "1/2 · Env"
  show "ask_user: the card, its first question"
  guard
  keys 1
  wait_for "2/2 · Checks"
  keys 1 3
  wait_for "● 3 lint"
  show "ask_user: the second question, 1 and 3 marked"
  keys Enter
  wait_for "wisp asks your approval"
  show "request_approval: wisp's own dialog"
  guard
  keys y
  wait_for "I will run the checks"
  wait_for "Enter sends"
  show "request_approval: after y"
  keys C-d
  wait_for "wisp-tui exited with status"
}

case "${1:-all}" in
  ask) demo_ask ;;
  ask_user) demo_ask_user ;;
  all) demo_ask; demo_ask_user ;;
  *) echo "usage: scripts/tui-demo.sh [ask|ask_user]" >&2; exit 2 ;;
esac
