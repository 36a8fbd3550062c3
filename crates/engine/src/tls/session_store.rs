//! One loop's session store: the tickets and session of the load's server, as many
//! tickets as the loop has connections, so that connections reopening together can all
//! resume.
//!
//! rustls's own in-memory store keeps at most 8 TLS 1.3 tickets per server: a loop of 100
//! connections without keep-alive would then resume at most 8 of any 100 that reconnect
//! at once. The loop's thread is its only user, so the lock is never contended.

use rustls::client::{ClientSessionStore, Tls12ClientSessionValue, Tls13ClientSessionValue};
use rustls::pki_types::ServerName;
use rustls::NamedGroup;
use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The sessions one loop keeps, for one server name (a load has one).
#[derive(Debug)]
pub struct LoopSessions {
    held: Mutex<Held>,
    tickets: usize,
}

#[derive(Debug, Default)]
struct Held {
    /// The server the sessions below belong to; another name starts afresh.
    name: Option<ServerName<'static>>,
    kx_hint: Option<NamedGroup>,
    tls12: Option<Tls12ClientSessionValue>,
    /// TLS 1.3 tickets, oldest first; each is used once.
    tls13: VecDeque<Tls13ClientSessionValue>,
}

impl LoopSessions {
    /// A store that keeps up to `tickets` TLS 1.3 tickets.
    pub fn new(tickets: usize) -> LoopSessions {
        let tickets = tickets.max(1);
        LoopSessions {
            held: Mutex::new(Held {
                tls13: VecDeque::with_capacity(tickets),
                ..Held::default()
            }),
            tickets,
        }
    }

    /// What is held for `name` (emptied first if it held another server's).
    fn for_name(&self, name: &ServerName<'_>) -> MutexGuard<'_, Held> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if !held.name.as_ref().is_some_and(|n| n == name) {
            held.kx_hint = None;
            held.tls12 = None;
            held.tls13.clear();
            held.name = Some(name.to_owned());
        }
        held
    }

    /// What is held for `name`, or None if that is another server.
    fn if_name(&self, name: &ServerName<'_>) -> Option<MutexGuard<'_, Held>> {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.name
            .as_ref()
            .is_some_and(|n| n == name)
            .then_some(held)
    }
}

impl ClientSessionStore for LoopSessions {
    fn set_kx_hint(&self, name: ServerName<'static>, group: NamedGroup) {
        self.for_name(&name).kx_hint = Some(group);
    }

    fn kx_hint(&self, name: &ServerName<'_>) -> Option<NamedGroup> {
        self.if_name(name)?.kx_hint
    }

    fn set_tls12_session(&self, name: ServerName<'static>, value: Tls12ClientSessionValue) {
        self.for_name(&name).tls12 = Some(value);
    }

    fn tls12_session(&self, name: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        self.if_name(name)?.tls12.clone()
    }

    fn remove_tls12_session(&self, name: &ServerName<'static>) {
        if let Some(mut held) = self.if_name(name) {
            held.tls12 = None;
        }
    }

    fn insert_tls13_ticket(&self, name: ServerName<'static>, value: Tls13ClientSessionValue) {
        let mut held = self.for_name(&name);
        if held.tls13.len() == self.tickets {
            held.tls13.pop_front();
        }
        held.tls13.push_back(value);
    }

    fn take_tls13_ticket(&self, name: &ServerName<'static>) -> Option<Tls13ClientSessionValue> {
        // The newest ticket is the least likely to have expired.
        self.if_name(name)?.tls13.pop_back()
    }
}
