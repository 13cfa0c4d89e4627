# Helpers for the build cache's tests (t15xx), sourced after test-lib.sh.

# Start nginx (Debian's nginx-light) with WebDAV PUT on 127.0.0.1,
# serving and storing under $1 as a Bazel HTTP remote cache, in the
# foreground as a child of the test, killed at exit. Sets DAV_URL.
start_dav() {
	dav_root=$1 dav_dir="$TRASH/.nginx"
	nginx=$(command -v nginx || echo /usr/sbin/nginx)
	mkdir -p "$dav_root" "$dav_dir/tmp" || return 1
	for try in 1 2 3 4 5; do
		dav_port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		cat >"$dav_dir/nginx.conf" <<-EOF
		daemon off;
		master_process off;
		worker_processes 1;
		pid $dav_dir/nginx.pid;
		error_log $dav_dir/error.log;
		events { worker_connections 64; }
		http {
			access_log $dav_dir/access.log;
			client_body_temp_path $dav_dir/tmp;
			client_max_body_size 0;
			server {
				listen 127.0.0.1:$dav_port;
				root $dav_root;
				location / {
					dav_methods PUT DELETE MKCOL;
					create_full_put_path on;
					dav_access user:rw group:r all:r;
				}
			}
		}
		EOF
		"$nginx" -p "$dav_dir" -c "$dav_dir/nginx.conf" -e "$dav_dir/error.log" \
			>"$dav_dir/out.log" 2>&1 &
		dav_pid=$!
		i=0
		while [ $i -lt 50 ]; do
			if "$PYTHON" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$dav_port" 2>/dev/null; then
				at_exit "stop_pid $dav_pid"
				DAV_URL="http://127.0.0.1:$dav_port"
				return 0
			fi
			kill -0 $dav_pid 2>/dev/null || break
			i=$((i + 1))
			sleep 0.1
		done
		kill $dav_pid 2>/dev/null
		wait $dav_pid 2>/dev/null
	done
	echo "nginx did not start: $(cat "$dav_dir/error.log" "$dav_dir/out.log")" >&2
	return 1
}

# A port on 127.0.0.1 that nothing listens on (a server that is down).
closed_port() {
	"$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
