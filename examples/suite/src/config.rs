//! An INI dialect and the server settings read from it.
//!
//! ```text
//! # the server
//! port = 8080
//! name = "edge \"one\""
//! timeout = 30
//! [log]
//! verbose = yes
//! ```
//!
//! Names and keys are ASCII letters, digits, `_`, `-` and `.`; a value runs
//! to the end of its line, trimmed, or is a quoted string with `\"`, `\\`,
//! `\n`, `\r` and `\t` escapes.

use std::fmt::Write as _;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ini {
    /// Entries before the first section header.
    pub global: Vec<(String, String)>,
    pub sections: Vec<Section>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub entries: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A syntax error on this line (counted from 1).
    Syntax {
        line: usize,
        reason: &'static str,
    },
    UnknownSection(String),
    UnknownKey(String),
    BadValue(String),
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn unquote(quoted: &str, line: usize) -> Result<String, ConfigError> {
    let syntax = |reason| ConfigError::Syntax { line, reason };
    let mut chars = quoted.chars();
    chars.next(); // The opening quote.
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err(syntax("unterminated string")),
            Some('"') => break,
            Some('\\') => out.push(match chars.next() {
                Some('"') => '"',
                Some('\\') => '\\',
                Some('n') => '\n',
                Some('r') => '\r',
                Some('t') => '\t',
                _ => return Err(syntax("unknown escape")),
            }),
            Some(c) => out.push(c),
        }
    }
    if chars.next().is_some() {
        return Err(syntax("text after a quoted value"));
    }
    Ok(out)
}

pub fn parse(text: &str) -> Result<Ini, ConfigError> {
    let mut ini = Ini::default();
    for (n, line) in text.split('\n').enumerate() {
        let line_no = n + 1;
        let syntax = |reason| ConfigError::Syntax {
            line: line_no,
            reason,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let name = header
                .strip_suffix(']')
                .ok_or_else(|| syntax("unclosed section header"))?;
            if !is_name(name) {
                return Err(syntax("bad section name"));
            }
            ini.sections.push(Section {
                name: name.to_string(),
                entries: Vec::new(),
            });
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| syntax("expected `key = value`"))?;
        let key = key.trim();
        if !is_name(key) {
            return Err(syntax("bad key"));
        }
        let value = value.trim();
        let value = if value.starts_with('"') {
            unquote(value, line_no)?
        } else {
            value.to_string()
        };
        let entries = match ini.sections.last_mut() {
            Some(section) => &mut section.entries,
            None => &mut ini.global,
        };
        entries.push((key.to_string(), value));
    }
    Ok(ini)
}

fn write_value(out: &mut String, value: &str) {
    let plain = value.trim() == value && !value.starts_with('"') && !value.contains(['\n', '\r']);
    if plain {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Ini {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let entries = |out: &mut String, entries: &[(String, String)]| {
            for (key, value) in entries {
                let _ = write!(out, "{key} = ");
                write_value(out, value);
                out.push('\n');
            }
        };
        entries(&mut out, &self.global);
        for section in &self.sections {
            let _ = writeln!(out, "[{}]", section.name);
            entries(&mut out, &section.entries);
        }
        out
    }
}

/// What a server reads from its configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub port: u16,
    pub workers: u8,
    pub name: String,
    /// How long `poll` waits for a request.
    pub timeout_us: u32,
    pub max_body: u32,
    pub verbose: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            port: 8080,
            workers: 4,
            name: String::new(),
            timeout_us: 30_000_000,
            max_body: 1 << 20,
            verbose: false,
        }
    }
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, ConfigError> {
    value
        .parse()
        .map_err(|_| ConfigError::BadValue(key.to_string()))
}

impl Settings {
    /// Reads the server's entries, which come before any section, and the
    /// `log` section.
    pub fn from_ini(ini: &Ini) -> Result<Settings, ConfigError> {
        let mut settings = Settings::default();
        for (key, value) in &ini.global {
            settings.set(None, key, value)?;
        }
        for section in &ini.sections {
            for (key, value) in &section.entries {
                settings.set(Some(&section.name), key, value)?;
            }
        }
        Ok(settings)
    }

    fn set(&mut self, section: Option<&str>, key: &str, value: &str) -> Result<(), ConfigError> {
        match (section, key) {
            (None, "port") => self.port = number(key, value)?,
            (None, "workers") => {
                self.workers = number(key, value)?;
                if self.workers == 0 {
                    return Err(ConfigError::BadValue(key.to_string()));
                }
            }
            (None, "name") => self.name = value.to_string(),
            (None, "timeout") => {
                let seconds: u32 = number(key, value)?;
                // Planted bug (deep): microseconds overflow a u32 past 71
                // minutes, and nothing bounds the seconds.
                self.timeout_us = seconds * 1_000_000;
            }
            (None, "max_body_kib") => {
                let kib: u32 = number(key, value)?;
                self.max_body = kib
                    .checked_mul(1024)
                    .ok_or_else(|| ConfigError::BadValue(key.to_string()))?;
            }
            (Some("log"), "verbose") => {
                self.verbose = match value {
                    "true" | "yes" | "on" => true,
                    "false" | "no" | "off" => false,
                    _ => return Err(ConfigError::BadValue(key.to_string())),
                }
            }
            (None | Some("log"), _) => {
                return Err(ConfigError::UnknownKey(key.to_string()));
            }
            (Some(other), _) => return Err(ConfigError::UnknownSection(other.to_string())),
        }
        Ok(())
    }

    pub fn load(text: &str) -> Result<Settings, ConfigError> {
        Settings::from_ini(&parse(text)?)
    }

    /// The INI text that loads back to these settings, when the timeout is
    /// a whole number of seconds and the body limit of kibibytes.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "port = {}", self.port);
        let _ = writeln!(out, "workers = {}", self.workers);
        out.push_str("name = ");
        write_value(&mut out, &self.name);
        out.push('\n');
        let _ = writeln!(out, "timeout = {}", self.timeout_us / 1_000_000);
        let _ = writeln!(out, "max_body_kib = {}", self.max_body / 1024);
        let _ = writeln!(out, "[log]");
        let _ = writeln!(out, "verbose = {}", self.verbose);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn ini_renders_and_parses_back(text: String) {
        if let Ok(ini) = parse(&text) {
            assert_eq!(parse(&ini.render()), Ok(ini));
        }
    }

    #[covcheck]
    fn settings_render_and_load_back(
        port: u16,
        workers: u8,
        name: String,
        timeout_s: u8,
        max_body_kib: u16,
        verbose: bool,
    ) {
        let settings = Settings {
            port,
            workers: workers.max(1),
            name,
            timeout_us: u32::from(timeout_s) * 1_000_000,
            max_body: u32::from(max_body_kib) * 1024,
            verbose,
        };
        assert_eq!(Settings::load(&settings.render()), Ok(settings));
    }

    #[covcheck]
    fn loaded_settings_are_consistent(text: String) {
        if let Ok(settings) = Settings::load(&text) {
            assert!(settings.workers > 0);
            assert_eq!(settings.max_body % 1024, 0);
            assert_eq!(settings.timeout_us % 1_000_000, 0);
        }
    }
}
