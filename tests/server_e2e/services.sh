# services.sh: private MariaDB and Apache instances for the real-server e2e test
# (sourced by boinc_server_e2e.sh). Each runs from its own directory under
# $work on its own loopback port; nothing of the system's services is read or
# changed, and stop_services ends both.
#
#   free_port                     a free TCP port on 127.0.0.1
#   start_mariadb DIR PORT        a fresh server (root by socket; user boincadm/boincadm
#                                 on 127.0.0.1); MariaDB 10.11 needs join_cache_level=0
#                                 for BOINC's transitioner
#   mariadb_query SQL             runs SQL as root through the socket
#   start_apache DIR PORT CONF... an Apache with PHP (prefork) and CGI, serving the
#                                 project configuration files CONF..., as www-data
#   stop_services                 stops what was started (also on EXIT)

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

mariadb_dir= apache_dir=

start_mariadb() {
  mariadb_dir=$1
  local port=$2
  rm -rf "$mariadb_dir"
  mkdir -p "$mariadb_dir/data"
  mariadb-install-db --no-defaults --datadir="$mariadb_dir/data" --user=root \
    --auth-root-authentication-method=socket >"$mariadb_dir/install.log" 2>&1 ||
    { cat "$mariadb_dir/install.log" >&2; return 1; }
  mariadbd --no-defaults --datadir="$mariadb_dir/data" --socket="$mariadb_dir/mysqld.sock" \
    --port="$port" --bind-address=127.0.0.1 --pid-file="$mariadb_dir/mysqld.pid" --user=root \
    --log-error="$mariadb_dir/mysqld.err" --skip-name-resolve --join-cache-level=0 \
    --innodb-buffer-pool-size=64M >/dev/null 2>&1 &
  local tick
  for ((tick = 0; tick < 600; tick++)); do
    mariadb --no-defaults -S "$mariadb_dir/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.1
  done
  mariadb_query "CREATE USER 'boincadm'@'127.0.0.1' IDENTIFIED BY 'boincadm';
                 GRANT ALL PRIVILEGES ON *.* TO 'boincadm'@'127.0.0.1';
                 CREATE USER 'boincadm'@'localhost' IDENTIFIED BY 'boincadm';
                 GRANT ALL PRIVILEGES ON *.* TO 'boincadm'@'localhost';
                 SET GLOBAL join_cache_level = 0;" ||
    { cat "$mariadb_dir/mysqld.err" >&2; return 1; }
}

mariadb_query() {
  mariadb --no-defaults -S "$mariadb_dir/mysqld.sock" -uroot -N -B -e "$1"
}

start_apache() {
  apache_dir=$1
  local port=$2 conf
  shift 2
  rm -rf "$apache_dir"
  mkdir -p "$apache_dir/logs" "$apache_dir/run"
  {
    echo "ServerRoot /etc/apache2"
    echo "PidFile $apache_dir/run/httpd.pid"
    echo "Mutex file:$apache_dir/run default"
    echo "DefaultRuntimeDir $apache_dir/run"
    echo "Listen 127.0.0.1:$port"
    echo "ServerName 127.0.0.1"
    echo "User www-data"
    echo "Group www-data"
    echo "ErrorLog $apache_dir/logs/error.log"
    echo "LogFormat \"%h %t \\\"%r\\\" %>s %b\" common"
    echo "CustomLog $apache_dir/logs/access.log common"
    for module in mpm_prefork authz_core authz_host alias dir mime env setenvif cgi; do
      echo "LoadModule ${module}_module /usr/lib/apache2/modules/mod_${module}.so"
    done
    echo "LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so"
    echo "TypesConfig /etc/mime.types"
    echo "DirectoryIndex index.php index.html"
    echo "<FilesMatch \\.php\$>"
    echo "    SetHandler application/x-httpd-php"
    echo "</FilesMatch>"
    echo "<Directory />"
    echo "    AllowOverride None"
    echo "    Require all denied"
    echo "</Directory>"
    for conf in "$@"; do echo "Include $conf"; done
  } >"$apache_dir/httpd.conf"
  apache2 -f "$apache_dir/httpd.conf" -k start || { cat "$apache_dir/logs/error.log" >&2; return 1; }
}

stop_services() {
  if [[ -n $apache_dir && -f $apache_dir/run/httpd.pid ]]; then
    apache2 -f "$apache_dir/httpd.conf" -k stop 2>/dev/null || kill "$(cat "$apache_dir/run/httpd.pid")" 2>/dev/null || true
  fi
  if [[ -n $mariadb_dir && -f $mariadb_dir/mysqld.pid ]]; then
    kill "$(cat "$mariadb_dir/mysqld.pid")" 2>/dev/null || true
    local tick
    for ((tick = 0; tick < 300; tick++)); do [[ -f $mariadb_dir/mysqld.pid ]] || break; sleep 0.1; done
  fi
}
