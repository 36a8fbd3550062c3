//! Opening connections: non-blocking TCP sockets, spread over loopback source addresses.
//!
//! A new connection per request leaves a TIME_WAIT socket behind for a minute, and one
//! source address has only ~28,000 ephemeral ports. Against a 127.x target, sources
//! 127.0.0.1..=127.0.0.N multiply the ports available, so a sustained `--no-keepalive`
//! load does not quietly stall on EADDRNOTAVAIL.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::RawFd;

/// Source addresses used against an IPv4 loopback target.
pub const LOOPBACK_SOURCES: u8 = 64;

/// Opens sockets to one target, rotating over its source addresses.
#[derive(Debug, Clone)]
pub struct Dialer {
    target: SockAddr,
    sources: Vec<SockAddr>,
    next_source: usize,
    nodelay: bool,
}

impl Dialer {
    /// A dialer for `target`; `spread` asks for loopback source spreading where possible.
    /// `first_source` staggers loops so they do not all start on the same address.
    pub fn new(target: SocketAddr, spread: bool, nodelay: bool, first_source: usize) -> Dialer {
        let sources = match target.ip() {
            IpAddr::V4(ip) if spread && ip.is_loopback() => (1..=LOOPBACK_SOURCES)
                .map(|i| SockAddr::from(SocketAddr::new(Ipv4Addr::new(127, 0, 0, i).into(), 0)))
                .collect(),
            _ => Vec::new(),
        };
        Dialer {
            target: SockAddr::from(target),
            next_source: first_source % sources.len().max(1),
            sources,
            nodelay,
        }
    }

    /// A new non-blocking socket, bound to the next source address if spreading.
    pub fn socket(&mut self) -> io::Result<RawFd> {
        let domain = self.target.family();
        // SAFETY: plain socket(2) call; the fd is owned by the caller from here on.
        let fd = check(unsafe {
            libc::socket(
                domain,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        })?;
        if let Err(e) = self.prepare(fd) {
            close(fd);
            return Err(e);
        }
        Ok(fd)
    }

    fn prepare(&mut self, fd: RawFd) -> io::Result<()> {
        if self.nodelay {
            setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
        }
        if let Some(src) = self.sources.get(self.next_source) {
            // The kernel then picks the port at connect time, per 4-tuple, instead of
            // reserving one per source address at bind time.
            setsockopt_int(fd, libc::IPPROTO_IP, libc::IP_BIND_ADDRESS_NO_PORT, 1)?;
            // SAFETY: `src` holds a valid sockaddr of `src.len` bytes.
            check(unsafe { libc::bind(fd, src.as_ptr(), src.len) })?;
            self.next_source = (self.next_source + 1) % self.sources.len();
        }
        Ok(())
    }

    /// Starts connecting `fd`; Ok(true) if already connected, Ok(false) if in progress.
    pub fn connect(&self, fd: RawFd) -> io::Result<bool> {
        // SAFETY: the target holds a valid sockaddr of `len` bytes.
        let r = unsafe { libc::connect(fd, self.target.as_ptr(), self.target.len) };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINPROGRESS) => Ok(false),
            _ => Err(e),
        }
    }

    /// The target as a raw sockaddr, for io_uring's connect.
    pub fn target(&self) -> &SockAddr {
        &self.target
    }
}

/// A socket address in the kernel's layout.
#[derive(Clone, Copy)]
pub struct SockAddr {
    storage: libc::sockaddr_storage,
    /// Length in bytes of the address inside `storage`.
    pub len: libc::socklen_t,
}

impl std::fmt::Debug for SockAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SockAddr(family {}, {} bytes)", self.family(), self.len)
    }
}

impl SockAddr {
    /// Pointer to the address, for system calls.
    pub fn as_ptr(&self) -> *const libc::sockaddr {
        (&self.storage as *const libc::sockaddr_storage).cast()
    }

    fn family(&self) -> libc::c_int {
        self.storage.ss_family as libc::c_int
    }
}

impl From<SocketAddr> for SockAddr {
    fn from(addr: SocketAddr) -> SockAddr {
        // SAFETY: all-zero is a valid sockaddr_storage.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let len = match addr {
            SocketAddr::V4(a) => {
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: a.port().to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from(*a.ip()).to_be(),
                    },
                    sin_zero: [0; 8],
                };
                // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in.
                unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in, sin) };
                std::mem::size_of::<libc::sockaddr_in>()
            }
            SocketAddr::V6(a) => {
                let sin6 = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: a.port().to_be(),
                    sin6_flowinfo: a.flowinfo(),
                    sin6_addr: libc::in6_addr {
                        s6_addr: a.ip().octets(),
                    },
                    sin6_scope_id: a.scope_id(),
                };
                // SAFETY: sockaddr_storage is larger than and aligned for sockaddr_in6.
                unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in6, sin6) };
                std::mem::size_of::<libc::sockaddr_in6>()
            }
        };
        SockAddr {
            storage,
            len: len as libc::socklen_t,
        }
    }
}

/// The pending error of a socket (SO_ERROR), e.g. the outcome of a non-blocking connect.
pub fn take_error(fd: RawFd) -> io::Result<()> {
    let mut err: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `err` and `len` are valid for getsockopt to write.
    check(unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            (&mut err as *mut libc::c_int).cast(),
            &mut len,
        )
    })?;
    match err {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Writes what the socket takes of `bytes` now, without waiting; the count, or -1.
pub fn send_now(fd: RawFd, bytes: &[u8]) -> isize {
    // SAFETY: `bytes` is valid for its length during the call.
    unsafe {
        libc::send(
            fd,
            bytes.as_ptr().cast(),
            bytes.len(),
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        )
    }
}

/// Closes a file descriptor, ignoring errors (nothing useful can be done with them).
pub fn close(fd: RawFd) {
    // SAFETY: the caller owns `fd` and does not use it again.
    unsafe { libc::close(fd) };
}

fn setsockopt_int(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    v: libc::c_int,
) -> io::Result<()> {
    // SAFETY: `v` lives across the call and its size is passed.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// Turns a -1 return into the errno it stands for.
pub fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// True when a connect error means "no free local port or address".
pub fn is_port_exhaustion(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EADDRNOTAVAIL) | Some(libc::EADDRINUSE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn spreads_loopback_sources_and_connects() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut d = Dialer::new(l.local_addr().unwrap(), true, true, 0);
        assert_eq!(d.sources.len(), LOOPBACK_SOURCES as usize);
        let mut peers = Vec::new();
        for _ in 0..3 {
            let fd = d.socket().unwrap();
            let _ = d.connect(fd).unwrap();
            let (_s, peer) = l.accept().unwrap();
            peers.push(peer.ip());
            close(fd);
        }
        assert_eq!(peers[0], "127.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(peers[1], "127.0.0.2".parse::<IpAddr>().unwrap());
        assert_eq!(peers[2], "127.0.0.3".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn refused_connect_is_reported() {
        let addr = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        let mut d = Dialer::new(addr, false, true, 0);
        assert!(d.sources.is_empty(), "no spreading asked for");
        let fd = d.socket().unwrap();
        let r = d.connect(fd);
        let refused = match r {
            Err(e) => e.raw_os_error() == Some(libc::ECONNREFUSED),
            Ok(_) => {
                // In progress: wait (a minute at most) until the socket says how it ended.
                let mut ended = libc::pollfd {
                    fd,
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd, for the duration of the call.
                unsafe { libc::poll(&mut ended, 1, 60_000) };
                take_error(fd).is_err()
            }
        };
        close(fd);
        assert!(refused);
    }
}
