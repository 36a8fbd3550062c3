//! Certificates made as people make them, with the `openssl` command, served by `openssl
//! s_server`, and curl's verdict on each: what shootout's certificate check is held to.
//! Everything is made in a temporary folder at run time and removed with it; servers
//! listen on 127.0.0.1 only and are killed when dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a server may take to listen, and curl to decide: generous, for a busy machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// The kind of key a certificate has.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    P256,
    P384,
    Rsa2048,
    Rsa4096,
    Ed25519,
}

impl Key {
    fn new_key(self) -> &'static [&'static str] {
        match self {
            Key::P256 => &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
            Key::P384 => &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384"],
            Key::Rsa2048 => &["-newkey", "rsa:2048"],
            Key::Rsa4096 => &["-newkey", "rsa:4096"],
            Key::Ed25519 => &["-newkey", "ed25519"],
        }
    }
}

/// A certificate and its key, as PEM files.
pub struct Made {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The folder certificates are made in.
pub struct Workshop {
    dir: tempfile::TempDir,
}

/// `subjectAltName` of a certificate for this machine, as the usual recipe writes it.
pub const LOCAL_NAMES: &str = "subjectAltName=DNS:localhost,IP:127.0.0.1";

impl Workshop {
    pub fn new() -> Workshop {
        Workshop {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    fn made(&self, name: &str) -> Made {
        Made {
            cert: self.dir.path().join(format!("{name}.pem")),
            key: self.dir.path().join(format!("{name}.key")),
        }
    }

    /// `openssl req -x509 -newkey KEY -nodes -subj /CN=localhost -addext EXT...`: the
    /// recipe of most guides. OpenSSL 3 writes `CA:TRUE` into it with its stock
    /// configuration (3.0) or always (3.2 on); `extensions` say so when it matters.
    pub fn self_signed(&self, name: &str, key: Key, extensions: &[&str]) -> Made {
        let made = self.made(name);
        let mut args = vec!["req", "-x509", "-nodes", "-days", "30"];
        args.extend_from_slice(key.new_key());
        args.extend(["-subj", "/CN=localhost"]);
        args.extend(extensions.iter().flat_map(|e| ["-addext", e]));
        args.extend(["-keyout", path(&made.key), "-out", path(&made.cert)]);
        openssl(&args);
        made
    }

    /// A root CA named `CN=NAME root`.
    pub fn root(&self, name: &str, key: Key) -> Made {
        let made = self.made(name);
        let subject = format!("/CN={name} root");
        let mut args = vec!["req", "-x509", "-nodes", "-days", "30"];
        args.extend_from_slice(key.new_key());
        args.extend(["-subj", &subject]);
        args.extend(["-addext", "basicConstraints=critical,CA:TRUE"]);
        args.extend(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
        args.extend(["-keyout", path(&made.key), "-out", path(&made.cert)]);
        openssl(&args);
        made
    }

    /// A certificate `CN=NAME` signed by `issuer` with `extensions` (an extfile's lines),
    /// as `openssl x509 -req -CA` makes one from a request.
    pub fn issue(&self, name: &str, key: Key, issuer: &Made, extensions: &[&str]) -> Made {
        let (made, request, extfile) = self.request(name, key, extensions);
        let serial = self.dir.path().join(format!("{name}.srl"));
        openssl(&[
            "x509",
            "-req",
            "-days",
            "30",
            "-in",
            path(&request),
            "-CA",
            path(&issuer.cert),
            "-CAkey",
            path(&issuer.key),
            "-CAserial",
            path(&serial),
            "-CAcreateserial",
            "-extfile",
            path(&extfile),
            "-out",
            path(&made.cert),
        ]);
        made
    }

    /// As [`Workshop::issue`], valid only in January 2020 (`openssl ca`, which sets
    /// dates); `issuer` None: it signs itself.
    pub fn expired(
        &self,
        name: &str,
        key: Key,
        issuer: Option<&Made>,
        extensions: &[&str],
    ) -> Made {
        let (made, request, extfile) = self.request(name, key, extensions);
        let config = self.ca_config(name);
        let mut args = vec!["ca", "-batch", "-notext", "-config", path(&config)];
        args.extend([
            "-startdate",
            "20200101000000Z",
            "-enddate",
            "20200201000000Z",
        ]);
        match issuer {
            Some(ca) => args.extend(["-cert", path(&ca.cert), "-keyfile", path(&ca.key)]),
            None => args.extend(["-selfsign", "-keyfile", path(&made.key)]),
        }
        args.extend(["-extfile", path(&extfile)]);
        args.extend(["-in", path(&request), "-out", path(&made.cert)]);
        openssl(&args);
        made
    }

    /// A key and a request for `CN=NAME`, and an extfile of `extensions`.
    fn request(&self, name: &str, key: Key, extensions: &[&str]) -> (Made, PathBuf, PathBuf) {
        let made = self.made(name);
        let request = self.dir.path().join(format!("{name}.csr"));
        let subject = format!("/CN={name}");
        let mut args = vec!["req", "-new", "-nodes"];
        args.extend_from_slice(key.new_key());
        args.extend(["-subj", &subject]);
        args.extend(["-keyout", path(&made.key), "-out", path(&request)]);
        openssl(&args);
        let extfile = self.dir.path().join(format!("{name}.ext"));
        std::fs::write(&extfile, extensions.join("\n") + "\n").expect("the extfile is written");
        (made, request, extfile)
    }

    /// The least `openssl ca` needs: a database and a folder of its own for `name`.
    fn ca_config(&self, name: &str) -> PathBuf {
        let dir = self.dir.path().join(format!("{name}.ca"));
        std::fs::create_dir_all(&dir).expect("the CA folder is made");
        std::fs::write(dir.join("index.txt"), "").expect("the CA database is made");
        let config = format!(
            "[ca]\ndefault_ca = here\n[here]\ndatabase = {d}/index.txt\nnew_certs_dir = {d}\n\
             rand_serial = yes\ndefault_md = sha256\npolicy = any\nunique_subject = no\n\
             [any]\ncommonName = supplied\n",
            d = dir.display()
        );
        let file = dir.join("ca.cnf");
        std::fs::write(&file, config).expect("the CA configuration is written");
        file
    }
}

/// `openssl ARGS`, which must succeed.
fn openssl(args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("openssl runs (scripts/install-test-deps installs it)");
    assert!(
        out.status.success(),
        "openssl {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a temporary path is UTF-8")
}

/// `openssl s_server -www` on 127.0.0.1: a handshake, then a status page for `GET /`.
pub struct SServer {
    child: Child,
    pub addr: SocketAddr,
}

/// What a server serves and how.
pub struct Serving<'a> {
    pub made: &'a Made,
    /// Intermediate CAs it sends after its certificate.
    pub chain: Option<&'a Made>,
    /// TLS 1.2 only, as an older server.
    pub tls12_only: bool,
}

impl SServer {
    /// Started and listening (it prints `ACCEPT 127.0.0.1:PORT` once it is).
    pub fn start(serving: &Serving) -> SServer {
        let mut args = vec!["s_server", "-accept", "127.0.0.1:0", "-www"];
        args.extend([
            "-cert",
            path(&serving.made.cert),
            "-key",
            path(&serving.made.key),
        ]);
        if let Some(chain) = serving.chain {
            args.extend(["-cert_chain", path(&chain.cert)]);
        }
        if serving.tls12_only {
            args.push("-tls1_2");
        }
        let mut child = Command::new("openssl")
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl s_server starts");
        let stdout = child.stdout.take().expect("its output is piped");
        let (tx, rx) = mpsc::channel();
        // Reads to the end, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("ACCEPT ") {
                    let _ = tx.send(addr.trim().parse::<SocketAddr>());
                }
            }
        });
        let addr = match rx.recv_timeout(PATIENCE) {
            Ok(Ok(addr)) => addr,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("openssl s_server did not say where it listens: {other:?}");
            }
        };
        SServer { child, addr }
    }
}

impl Drop for SServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `curl https://HOST:PORT/` (`host` resolved to `addr`), trusting `cacert` or
/// else the system's CAs, accepts the server: Err with curl's reason when not.
pub fn curl(addr: SocketAddr, host: &str, cacert: Option<&Path>) -> Result<(), String> {
    let port = addr.port();
    let resolve = format!("{host}:{port}:{}", addr.ip());
    let url = format!("https://{host}:{port}/");
    let max_time = PATIENCE.as_secs().to_string();
    let mut command = Command::new("curl");
    // -q first: no ~/.curlrc; no proxy: the server is on this machine.
    command.args(["-q", "-sS", "-o", "/dev/null", "--noproxy", "*"]);
    command.args(["--max-time", &max_time, "--resolve", &resolve]);
    if let Some(cacert) = cacert {
        command.arg("--cacert").arg(cacert);
    }
    let out = command
        .arg(&url)
        .stdin(Stdio::null())
        .output()
        .expect("curl runs (scripts/install-test-deps installs it)");
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or("no reason")
            .to_string()),
    }
}
