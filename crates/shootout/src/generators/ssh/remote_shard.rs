//! The command line a shard runs on its host: `shootout ARGS` with its spec on its input,
//! stopped when the harness goes away.

/// `shootout ARGS` for the remote shell, fed and watched. The session's first line is
/// the shard's spec: `read` takes exactly that line (a shell reads a pipe byte by byte)
/// and the shard reads it from a pipe of its own, so a spec of any size travels. The rest
/// of the session's input is the shard's lifeline: when it closes (the harness closed
/// it, killed the `ssh` client, or died) the shard is sent SIGTERM, so that it stops
/// instead of loading a server nobody measures. SIGTERM stops a load the way Ctrl-C
/// does. `$!` of a pipeline is its last process, the shard. The watcher's output goes
/// nowhere, so that the session ends when the shard does; `sh` gives a background job
/// /dev/null as input, hence fd 3.
pub fn command_line(remote: &str, args: &[String]) -> String {
    let shard = shell_words::join(std::iter::once(remote).chain(args.iter().map(String::as_str)));
    format!(
        "exec 3<&0; IFS= read -r spec; printf '%s\\n' \"$spec\" | {shard} 3<&- & p=$!; \
         {{ cat <&3 >/dev/null 2>&1; kill $p; }} >/dev/null 2>&1 & w=$!; exec 3<&-; \
         wait $p; s=$?; kill $w 2>/dev/null; exit $s"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// The command line, run by a local `sh` as sshd would run it, the spec line first
    /// on its input.
    fn sh(script: &str, close_input: bool) -> std::process::Output {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Held open unless asked: the shard must then end on its own, and the session
        // with it, while the input is still open.
        let mut input = child.stdin.take().unwrap();
        writeln!(input, "{{\"url\": \"http://a/\", \"body\": \"JCQgJ1wn\"}}").unwrap();
        if close_input {
            drop(input);
            return child.wait_with_output().unwrap();
        }
        let output = child.wait_with_output().unwrap();
        drop(input);
        output
    }

    #[test]
    fn the_shard_reads_its_spec_prints_its_output_and_exit_status_and_the_session_ends() {
        let args = ["-c".to_string(), "cat; echo 'a b'; exit 3".to_string()];
        let out = sh(&command_line("sh", &args), false);
        let spec = "{\"url\": \"http://a/\", \"body\": \"JCQgJ1wn\"}\n";
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{spec}a b\n"));
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn a_closed_session_stops_the_shard() {
        // Without the watcher this sleeps 60 s; with it, SIGTERM ends it at once.
        let args = ["60".to_string()];
        let out = sh(&command_line("sleep", &args), true);
        assert_eq!(out.status.code(), Some(128 + 15), "{out:?}");
    }
}
