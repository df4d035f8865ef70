#!/usr/bin/env bash
# Serve Attention Lab from N app processes behind nginx, with sticky sessions, on one address.
#
#   bash scripts/serve_many.sh 4              # 4 processes, students open http://<this-machine>:8501
#   PORT=9000 bash scripts/serve_many.sh 2    # another port
#   ATTENTION_LAB_DATABASE_URL=postgresql://user@db-host/attention_lab bash scripts/serve_many.sh 4
#
# Why: one Streamlit process runs every session's script on one Python interpreter (one core at a
# time). N processes use N cores. A session must stay on the process that holds its state: the
# first response sets a cookie `al_route` and nginx hashes it to pick the process for every later
# request of that browser (its websocket included). ip_hash would not do: a class behind one NAT,
# or every test on loopback, shares one IP.
#
# Runs in the foreground; Ctrl-C (or SIGTERM) stops nginx and every app process. nginx runs as a
# normal process with its own config in RUN_DIR (default: a new temp dir): nothing under /etc is
# changed. Env: PORT (8501), ADDRESS (0.0.0.0, where nginx listens), RUN_DIR.
#
# A teacher's tabs get a process of their own when N >= 3: a request whose link has `teacher=` (the teacher's own
# link) gets a route key "teacher-..." and every route key so named goes to the first process, which no student's
# key reaches. The teacher's run, which publishes each move to the class, then never waits behind 50 students'
# runs on a shared process (benchmarks/README.md, class mode). With N < 3 the teacher shares the processes.
# A student who forges such a cookie only lands on that process; the class's controls still need the key.
#
# Class mode keeps its classes in one database shared by every process: ATTENTION_LAB_DATABASE_URL (PostgreSQL,
# for several processes or machines) is passed to each app process; without it they share the SQLite file in
# ATTENTION_LAB_DATA_DIR (default data/), which works on one machine (WAL) but queues every write on one lock.
# benchmarks/bench_class.py measures a class through this script, with either.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-2}
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "usage: serve_many.sh N (N >= 1 app processes)" >&2; exit 2; }
PORT=${PORT:-8501}
ADDRESS=${ADDRESS:-0.0.0.0}
RUN_DIR=${RUN_DIR:-$(mktemp -d -t attention-lab-XXXXXX)}
mkdir -p "$RUN_DIR"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
PY=.venv/bin/python
[ -x "$PY" ] || bash scripts/setup.sh
unset PYTHONDONTWRITEBYTECODE  # the first process writes the .pyc files (setup.sh compiles none)

NGINX=$(command -v nginx || true)
[ -n "$NGINX" ] || [ ! -x /usr/sbin/nginx ] || NGINX=/usr/sbin/nginx
if [ -z "$NGINX" ]; then
  # Debian's package; as scripts/setup.sh does for chromium.
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx >/dev/null
  NGINX=$(command -v nginx || echo /usr/sbin/nginx)
fi

pids=()
cleanup() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# Free loopback ports for the app processes, and one cookie secret shared by all of them.
read -r -a ports <<<"$("$PY" - "$N" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
)"
secret=$("$PY" -c "import secrets; print(secrets.token_hex(32))")

mkdir -p static/class  # class mode's version files (classroom/beacon.py), served by nginx below
upstreams=""
teacher_upstreams=""
for i in "${!ports[@]}"; do
  p=${ports[$i]}
  # The environment (ATTENTION_LAB_DATABASE_URL included) is every app process's.
  STREAMLIT_SERVER_COOKIE_SECRET="$secret" \
    "$PY" -m streamlit run serve.py --server.port "$p" --server.address 127.0.0.1 --server.headless true \
    >"$RUN_DIR/app-$i.log" 2>&1 &
  pids+=($!)
  line="    server 127.0.0.1:$p max_fails=0;"$'\n'
  if [ "$N" -ge 3 ] && [ "$i" = 0 ]; then
    teacher_upstreams+=$line
  else
    upstreams+=$line
  fi
done
[ -n "$teacher_upstreams" ] || teacher_upstreams=$upstreams

mkdir -p "$RUN_DIR/tmp"
user_line=""
if [ "$(id -u)" = 0 ]; then
  user_line="user nobody nogroup;"  # workers drop root; they only need the temp dir
  chmod 0777 "$RUN_DIR/tmp"
fi
cat >"$RUN_DIR/nginx.conf" <<EOF
$user_line
worker_processes auto;
daemon off;
pid $RUN_DIR/nginx.pid;
error_log $RUN_DIR/nginx-error.log warn;
events { worker_connections 4096; }
http {
  client_body_temp_path $RUN_DIR/tmp/body;
  proxy_temp_path $RUN_DIR/tmp/proxy;
  fastcgi_temp_path $RUN_DIR/tmp/fastcgi;
  uwsgi_temp_path $RUN_DIR/tmp/uwsgi;
  scgi_temp_path $RUN_DIR/tmp/scgi;
  # Which app process served what, and for which route key (tests read this).
  log_format routed '\$remote_addr [\$time_local] "\$request" \$status upstream=\$upstream_addr route=\$route_key';
  access_log $RUN_DIR/nginx-access.log routed;

  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  # Sticky sessions: a browser without the cookie gets a fresh random key; the key is sent back as
  # a cookie, so all its later requests (and its websocket) hash to the same app process. The teacher's
  # link (an argument teacher=) gets a teacher's key, kept as long as the browser keeps the cookie.
  map "\$arg_teacher|\$cookie_al_route" \$route_key {
    "~^[|]\$" \$request_id;
    "~^[|](?<kept>.+)\$" \$kept;
    "~^[^|]+[|](?<kept_teacher>teacher-.+)\$" \$kept_teacher;
    default teacher-\$request_id;
  }
  map \$route_key \$app_group { "~^teacher-" attention_lab_teachers; default attention_lab; }

  upstream attention_lab {
    hash \$route_key consistent;
$upstreams  }
  upstream attention_lab_teachers {
    hash \$route_key consistent;
$teacher_upstreams  }

  server {
    listen $ADDRESS:$PORT;
    # Class mode's version files (classroom/beacon.py), fetched by every student's browser twice a second: served
    # from the folder, so a poll that finds nothing new reaches no app process. The app processes all run here and
    # write this folder (each keeps the files of its own members' classes in sync with the database).
    location /app/static/class/ {
      alias $PWD/static/class/;
      default_type application/json;
      add_header Cache-Control "no-store" always;
      access_log off;
    }
    location / {
      proxy_pass http://\$app_group;
      proxy_http_version 1.1;
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      # A websocket stays open for the whole lesson.
      proxy_read_timeout 1d;
      proxy_send_timeout 1d;
      proxy_buffering off;
      add_header Set-Cookie "al_route=\$route_key; Path=/; HttpOnly; SameSite=Lax" always;
    }
  }
}
EOF

# Wait until every app process answers before opening the door.
for p in "${ports[@]}"; do
  for _ in $(seq 1 600); do
    if "$PY" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$p/_stcore/health', timeout=2)" 2>/dev/null; then
      break
    fi
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "an app process exited; see $RUN_DIR/app-*.log" >&2; exit 1; }; done
    sleep 0.3
  done
done

"$NGINX" -p "$RUN_DIR" -c "$RUN_DIR/nginx.conf" &
pids+=($!)
db="SQLite in ${ATTENTION_LAB_DATA_DIR:-data/}"
[ -z "${ATTENTION_LAB_DATABASE_URL:-}" ] || db="${ATTENTION_LAB_DATABASE_URL%%://*} (ATTENTION_LAB_DATABASE_URL)"
teachers=""
[ "$N" -lt 3 ] || teachers=", the first one for teachers' links"
echo "Attention Lab: $N processes (127.0.0.1:${ports[*]})$teachers behind nginx on http://$ADDRESS:$PORT, classes in $db  (logs in $RUN_DIR)"
wait -n "${pids[@]}"
echo "a process stopped; shutting down (logs in $RUN_DIR)" >&2
exit 1
