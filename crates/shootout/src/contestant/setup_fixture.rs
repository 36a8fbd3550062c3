//! Made-up contestants for the set-up tests: a manifest from its few fields that matter.

use crate::contestant::manifest::{Contestant, Manifest, Origin};
use std::path::Path;

/// What a made-up contestant requires and runs.
#[derive(Default)]
pub struct Fake<'a> {
    pub commands: &'a [&'a str],
    pub debian: &'a [&'a str],
    pub build: &'a str,
    pub blocked: &'a str,
}

/// A contestant called `name`, its folder `dir/name`, its build folder `dir/builds/name`.
pub fn contestant(name: &str, dir: &Path, fake: Fake) -> Contestant {
    let Fake {
        commands,
        debian,
        build,
        blocked,
    } = fake;
    let toml = format!(
        "name = {name:?}\nlanguage = \"C\"\nframework = \"x\"\nversion = \"1\"\n\
         blocked = {blocked:?}\n[requires]\ncommands = {commands:?}\ndebian = {debian:?}\n\
         [setup]\nbuild = {build:?}\n[start]\ncommand = \"true\"\n"
    );
    let manifest: Manifest = toml::from_str(&toml).expect("a valid manifest");
    Contestant {
        manifest,
        dir: dir.join(name),
        build: dir.join("builds").join(name),
        origin: Origin::Inline,
        declared_in: dir.join("experiment.toml"),
        running: None,
    }
}
