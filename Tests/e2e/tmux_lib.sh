# tmux_lib.sh - the helpers of the end-to-end scripts that drive the real `zeader` in a
# private tmux server. Source it after setting `work` (a scratch folder); it sets `sock`,
# `starts`, `checks` and `failures`, which the script reports at its end.
sock="$work/tmux.0.sock" starts=0
failures=0 checks=0

t() { tmux -S "$sock" "$@"; }
# stop_server SOCKET: kill-server, and SIGKILL in case the server inherited SIGTERM blocked
# (a test runner's thread may block it), which kill-server relies on.
stop_server() {
	local pid
	pid=$(tmux -S "$1" display -p '#{pid}' 2>/dev/null) || return 0
	tmux -S "$1" kill-server 2>/dev/null || true
	kill -KILL "$pid" 2>/dev/null || true
}
screen() { t capture-pane -p -t main; }
# expect TEXT [SECONDS]: waits until the screen shows TEXT.
expect() {
	local text=$1 limit=${2:-5} i
	checks=$((checks + 1))
	for i in $(seq $((limit * 20))); do
		screen | grep -qF -- "$text" && return 0
		sleep 0.05
	done
	echo "FAIL: screen never showed '$text'" >&2
	screen | sed 's/^/    | /' >&2
	failures=$((failures + 1))
}
expect_line() {  # expect_line N TEXT: line N (1-based) contains TEXT
	local n=$1 text=$2 i
	checks=$((checks + 1))
	for i in $(seq 100); do
		screen | sed -n "${n}p" | grep -qF -- "$text" && return 0
		sleep 0.05
	done
	echo "FAIL: line $n never showed '$text' (it is: '$(screen | sed -n "${n}p")')" >&2
	failures=$((failures + 1))
}
keys() { t send-keys -t main "$@"; sleep 0.15; }
# start CMD: runs CMD in a fresh 100x30 pane, then a shell line reporting the exit status
# and the terminal modes (stty), which a restored terminal has back.
start() {
	stop_server "$sock"
	starts=$((starts + 1))
	sock="$work/tmux.$starts.sock"  # a fresh private server each time
	t new-session -d -s main -x 100 -y 30 "stty sane; $*; echo EXIT=\$?; stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo)\$' | tr '\n' ' '; echo; sleep 60"
}
# fail MESSAGE: counts a failed check, with the screen it saw.
fail() {
	echo "FAIL: $*" >&2
	screen | sed 's/^/    | /' >&2
	failures=$((failures + 1))
}
# refute TEXT: counts a check that the screen does not show TEXT.
refute() {
	checks=$((checks + 1))
	if screen | grep -qF -- "$1"; then fail "the screen shows '$1'"; fi
}
# sgr LINE: the escape sequences tmux keeps for line LINE, one a line.
sgr() { t capture-pane -e -p -t main | sed -n "${1}p" | grep -o $'\e\\[[0-9;]*m' | tr -d '\033' || true; }
# sets_sgr LINE CODES: whether line LINE's sequences set every code in CODES (tmux may set them in one sequence or several).
sets_sgr() {
	local code codes
	codes=$(sgr "$1" | tr -d '[m' | tr ';' '\n')
	for code in $2; do
		printf '%s\n' "$codes" | grep -qx -- "$code" || return 1
	done
}
# has_sgr LINE WHAT CODES: sets_sgr, waiting up to 10 s for the reader to finish drawing the
# line (the title it waited for can be on screen before the rest of the frame is).
has_sgr() {
	local line=$1 what=$2 tries=0
	checks=$((checks + 1))
	until sets_sgr "$line" "$3"; do
		tries=$((tries + 1))
		if [ $tries -ge 50 ]; then
			echo "FAIL: line $line ($what) does not set SGR codes $3: $(sgr "$line" | tr '\n' ' ')" >&2
			failures=$((failures + 1))
			return
		fi
		sleep 0.2
	done
}
# serve_static DIR SECONDS: serve_static.py on 127.0.0.1 and a free port (its log in
# $work/http.log), stopping by itself after SECONDS; sets `server_pid` and `port` (9 when it did
# not start: the checks that use it then fail one by one instead of stopping the script).
serve_static() {
	python3 -u "$root/Tests/e2e/serve_static.py" "$1" "$2" >"$work/http.log" 2>&1 &
	server_pid=$!
	port=""
	for i in $(seq 200); do
		port=$(sed -n 's/^serving on 127\.0\.0\.1 port \([0-9]*\)$/\1/p' "$work/http.log" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.05
	done
	checks=$((checks + 1))
	if [ -z "$port" ]; then
		echo "FAIL: the loopback HTTP server did not start: $(cat "$work/http.log")" >&2
		failures=$((failures + 1))
		port=9
	fi
}
