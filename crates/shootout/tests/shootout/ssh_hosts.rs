//! Hosts for the SSH generator tests, made of network namespaces: a server namespace
//! (where the harness and nginx run) holding a bridge at 198.18.0.1/24, and one namespace
//! per host at 198.18.0.2, .3, ... joined to the bridge, each with its own sshd (Debian's
//! openssh-server) accepting a key the test makes. 198.18.0.0/15 is set aside for
//! benchmarking (RFC 2544), and nothing leaves the namespaces. Everything made is removed
//! when the [`Fleet`] is dropped, a failed test included.

use nix::sched::{setns, CloneFlags};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The nginx port in the server namespace (the namespace is the test's own).
pub const NGINX_PORT: u16 = 8080;

/// What one host is like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// sshd up, this shootout on its PATH.
    Ours,
    /// sshd up, a `shootout` on its PATH that says it is another version.
    OtherVersion,
    /// sshd up, this shootout, and a `date` on its PATH 5 s ahead of this machine's.
    ClockAhead,
    /// sshd up, no shootout on its PATH (for --push).
    NoShootout,
    /// The namespace and address, but no sshd.
    Down,
}

/// The namespaces, sshds and nginx of one test.
pub struct Fleet {
    dir: PathBuf,
    server_ns: String,
    host_ns: Vec<String>,
    sshds: Vec<Child>,
    nginx: Option<Child>,
}

impl Fleet {
    /// Makes the server namespace and one host per kind.
    pub fn new(kinds: &[HostKind]) -> Fleet {
        assert!(
            Path::new("/usr/sbin/sshd").exists(),
            "no /usr/sbin/sshd: run scripts/install-test-deps (openssh-server, iproute2); \
             the SSH tests make network namespaces, as root"
        );
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let tag = format!(
            "so{}x{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut fleet = Fleet {
            dir: std::env::temp_dir().join(format!("shootout-ssh-{tag}")),
            server_ns: format!("{tag}s"),
            host_ns: Vec::new(),
            sshds: Vec::new(),
            nginx: None,
        };
        fs::create_dir_all(&fleet.dir).unwrap();
        fleet.make_server_namespace();
        fleet.make_keys();
        for (i, kind) in kinds.iter().enumerate() {
            let ns = format!("{tag}h{i}");
            fleet.host_ns.push(ns.clone());
            fleet.make_host(i, &ns, *kind);
        }
        fleet
    }

    /// `root@198.18.0.N` of host `i`.
    pub fn host(&self, i: usize) -> String {
        format!("root@{}", address(i))
    }

    /// The options SHOOTOUT_SSH_OPTS carries: the test's key, no known_hosts (the host
    /// keys are made afresh each time), no user config.
    pub fn ssh_options(&self) -> String {
        format!(
            "-F /dev/null -i {} -o IdentitiesOnly=yes -o StrictHostKeyChecking=no \
             -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
            self.dir.join("client_key").display()
        )
    }

    /// `f` run on a thread inside the server namespace: what it starts (ssh clients,
    /// loads) starts there too.
    pub fn in_server_namespace<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        let ns = format!("/run/netns/{}", self.server_ns);
        std::thread::scope(|s| {
            s.spawn(|| {
                let file = fs::File::open(&ns).unwrap();
                setns(file, CloneFlags::CLONE_NEWNET).expect("entering the server namespace");
                f()
            })
            .join()
            .unwrap()
        })
    }

    /// A command run inside the server namespace.
    pub fn server_command(&self, program: &str) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.server_ns, program]);
        cmd
    }

    /// Starts nginx with `workers` workers in the server namespace on 198.18.0.1, logging
    /// every request (its client's address and its place on its connection); its /hello
    /// URL.
    pub fn start_nginx(&mut self, workers: usize) -> String {
        let d = self.dir.display();
        let conf = format!(
            "user root; daemon off; master_process on; worker_processes {workers};\n\
             pid {d}/nginx.pid; error_log {d}/nginx-error.log warn;\n\
             events {{ worker_connections 4096; }}\n\
             http {{ log_format bench '$remote_addr $connection_requests $request_uri $status'; access_log {d}/access.log bench;\n\
             client_body_temp_path {d}/cb; proxy_temp_path {d}/px; fastcgi_temp_path {d}/fc;\n\
             uwsgi_temp_path {d}/uw; scgi_temp_path {d}/sc; keepalive_requests 1000000000;\n\
             server {{ listen 198.18.0.1:{NGINX_PORT} backlog=4096 reuseport;\n\
             location = /hello {{ default_type text/plain; return 200 \"Hello World\"; }} }} }}\n"
        );
        fs::write(self.dir.join("nginx.conf"), conf).unwrap();
        let child = self
            .server_command("/usr/sbin/nginx")
            .args(["-p", &d.to_string(), "-c", &format!("{d}/nginx.conf")])
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx runs (scripts/install-test-deps installs it)");
        self.nginx = Some(child);
        // nginx writes its pid file once its sockets listen.
        wait_until("nginx to listen", || self.dir.join("nginx.pid").exists());
        format!("http://198.18.0.1:{NGINX_PORT}/hello")
    }

    /// Waits until nginx has logged, from each of the first `hosts` hosts, a request that
    /// came second (or later) on its connection: a shard sends it only once it has
    /// counted the answer to the first (closed loop, no pipelining), so every shard has
    /// measured something.
    pub fn wait_until_each_host_counted(&self, hosts: usize) {
        let log = self.dir.join("access.log");
        let counted = |text: &str, i: usize| {
            text.lines().any(|l| {
                let mut words = l.split(' ');
                words.next() == Some(address(i).as_str())
                    && words.next().and_then(|n| n.parse::<u64>().ok()) >= Some(2)
            })
        };
        wait_until("every host's shard to count an answer", || {
            let text = fs::read_to_string(&log).unwrap_or_default();
            (0..hosts).all(|i| counted(&text, i))
        });
    }

    /// Stops nginx gracefully (so its log is complete) and counts its access-log lines.
    pub fn nginx_requests(&mut self) -> u64 {
        if let Some(mut nginx) = self.nginx.take() {
            let _ = kill(Pid::from_raw(nginx.id() as i32), Signal::SIGQUIT);
            let _ = nginx.wait();
        }
        let log = fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
        log.lines().count() as u64
    }

    fn make_server_namespace(&self) {
        let ns = &self.server_ns;
        ip(&["netns", "add", ns]);
        ip(&["-n", ns, "link", "set", "lo", "up"]);
        ip(&["-n", ns, "link", "add", "br0", "type", "bridge"]);
        ip(&["-n", ns, "addr", "add", "198.18.0.1/24", "dev", "br0"]);
        ip(&["-n", ns, "link", "set", "br0", "up"]);
    }

    fn make_keys(&self) {
        for key in ["host_key", "client_key"] {
            let path = self.dir.join(key);
            let ok = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(&path)
                .status()
                .unwrap()
                .success();
            assert!(ok, "ssh-keygen made {key}");
        }
        fs::copy(
            self.dir.join("client_key.pub"),
            self.dir.join("authorized_keys"),
        )
        .unwrap();
    }

    /// Host `i`: its namespace on the bridge, its PATH folder, its sshd.
    fn make_host(&mut self, i: usize, ns: &str, kind: HostKind) {
        let veth = format!("v{i}");
        ip(&["netns", "add", ns]);
        ip(&["-n", ns, "link", "set", "lo", "up"]);
        ip(&[
            "-n",
            ns,
            "link",
            "add",
            "eth0",
            "type",
            "veth",
            "peer",
            "name",
            &veth,
            "netns",
            &self.server_ns,
        ]);
        ip(&[
            "-n",
            &self.server_ns,
            "link",
            "set",
            &veth,
            "master",
            "br0",
            "up",
        ]);
        let cidr = format!("{}/24", address(i));
        ip(&["-n", ns, "addr", "add", &cidr, "dev", "eth0"]);
        ip(&["-n", ns, "link", "set", "eth0", "up"]);
        let bin = self.dir.join(format!("h{i}-bin"));
        fs::create_dir_all(&bin).unwrap();
        fill_path(&bin, kind);
        if kind != HostKind::Down {
            self.start_sshd(i, ns, &bin);
        }
    }

    fn start_sshd(&mut self, i: usize, ns: &str, bin: &Path) {
        let d = self.dir.display();
        let conf = self.dir.join(format!("h{i}-sshd_config"));
        // The host's PATH is set by sshd itself (SetEnv wins over its default PATH).
        fs::write(
            &conf,
            format!(
                "ListenAddress {addr}:22\nHostKey {d}/host_key\n\
                 AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/h{i}-sshd.pid\n\
                 StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 SetEnv PATH={bin}:/usr/local/bin:/usr/bin:/bin\n",
                addr = address(i),
                bin = bin.display()
            ),
        )
        .unwrap();
        // sshd refuses to start without its privilege separation folder, which the
        // Debian service makes at boot; a container that never ran it lacks it.
        fs::create_dir_all("/run/sshd").unwrap();
        let log = self.dir.join(format!("h{i}-sshd.log"));
        let child = Command::new("ip")
            .args(["netns", "exec", ns, "/usr/sbin/sshd", "-D", "-e", "-f"])
            .arg(&conf)
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        self.sshds.push(child);
        wait_until("sshd to listen", || {
            fs::read_to_string(&log).is_ok_and(|t| t.contains("Server listening"))
        });
    }
}

/// Host `i`'s address: 198.18.0.2 for the first.
fn address(i: usize) -> String {
    format!("198.18.0.{}", i + 2)
}

/// The folder first on a host's PATH: its `shootout`, and for one host, its `date`.
fn fill_path(bin: &Path, kind: HostKind) {
    let ours = Path::new(env!("CARGO_BIN_EXE_shootout"));
    let script = |name: &str, text: &str| {
        let path = bin.join(name);
        fs::write(&path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    };
    match kind {
        HostKind::Ours | HostKind::ClockAhead => {
            std::os::unix::fs::symlink(ours, bin.join("shootout")).unwrap()
        }
        HostKind::OtherVersion => script("shootout", "#!/bin/sh\necho 'shootout 0.0.1'\n"),
        HostKind::NoShootout | HostKind::Down => {}
    }
    if kind == HostKind::ClockAhead {
        script(
            "date",
            "#!/bin/sh\nexec /bin/date -d \"@$(( $(/bin/date +%s) + 5 ))\" \"$@\"\n",
        );
    }
}

/// `ip ARGS`, which must succeed.
fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .expect("ip (iproute2) runs");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits (checkout::PATIENCE at most) until `done`.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    crate::checkout::wait_for(what, crate::checkout::PATIENCE, || done().then_some(()));
}

impl Drop for Fleet {
    fn drop(&mut self) {
        let children = self.sshds.iter_mut().chain(self.nginx.as_mut());
        for child in children {
            let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM);
            let _ = child.wait();
        }
        for ns in self.host_ns.iter().chain([&self.server_ns]) {
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}
