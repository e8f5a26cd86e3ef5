//! The export panel's choices as they survive a reload: format, MIG strategy, namespace and
//! image, kept as the page's own localStorage record and read back through the core's checks.

use crate::storage::record;
use gpu_share_core::api::{ExportFormat, ExportOptions, MigStrategy};

use super::key;
use crate::{storage, words};

/// The panel's choices, as they survive a reload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub format: ExportFormat,
    pub strategy: MigStrategy,
    /// As typed; blank is none.
    pub namespace: String,
    /// As typed; blank is the default image.
    pub image: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            format: ExportFormat::ALL[0],
            strategy: MigStrategy::default(),
            namespace: String::new(),
            image: String::new(),
        }
    }
}

/// The core's objection to a namespace or an image typed in the panel (blank is always fine).
fn refused(field: &str, text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut o = ExportOptions::default();
    match field {
        "namespace" => o.namespace = Some(text.to_string()),
        _ => o.image = text.to_string(),
    }
    o.validate().err().map(|e| words::message(&e))
}

impl Settings {
    const KEYS: [&'static str; 4] = ["format", "mig_strategy", "namespace", "image"];

    /// The stored form: the core's record of the choices' text.
    pub fn to_stored(&self) -> String {
        let [f, m, n, i] = Self::KEYS;
        record::write_fields(&[
            (f, key(self.format)),
            (m, self.strategy.as_str()),
            (n, &self.namespace),
            (i, &self.image),
        ])
    }

    /// What to store for these choices: a namespace or image the core refuses (half typed, or
    /// wrong) keeps the last stored one, so what is read back was valid when written.
    pub fn storable(&self, last: &Settings) -> Settings {
        let keep = |field: &str, now: &String, then: &String| match refused(field, now) {
            Some(_) => then.clone(),
            None => now.clone(),
        };
        Settings {
            format: self.format,
            strategy: self.strategy,
            namespace: keep("namespace", &self.namespace, &last.namespace),
            image: keep("image", &self.image, &last.image),
        }
    }

    /// The stored choices, each checked by the core (the format and strategy by their readers,
    /// the namespace and image by the export's own rules); one it refuses is its default, and the
    /// note says which and why.
    pub fn from_stored(text: &str) -> (Settings, Option<String>) {
        let say = |why: String| {
            Some(format!(
                "The export settings stored in this browser could not all be used ({why}); \
                 the defaults are shown for them."
            ))
        };
        let [format, strategy, namespace, image] = match storage::setting_fields(text, Self::KEYS) {
            Ok(fields) => fields,
            Err(why) => return (Settings::default(), say(why)),
        };
        let mut s = Settings::default();
        let mut why = Vec::new();
        if let Some(f) = format {
            match f.parse::<ExportFormat>() {
                Ok(f) => s.format = f,
                Err(e) => why.push(format!("format: {}", words::message(&e))),
            }
        }
        if let Some(m) = strategy {
            match m.parse::<MigStrategy>() {
                Ok(m) => s.strategy = m,
                Err(e) => why.push(format!("MIG strategy: {}", words::message(&e))),
            }
        }
        for (field, text, slot) in [
            ("namespace", namespace, &mut s.namespace),
            ("image", image, &mut s.image),
        ] {
            let Some(text) = text else { continue };
            match refused(field, &text) {
                Some(e) => why.push(format!("{field}: {e}")),
                None => *slot = text,
            }
        }
        let note = (!why.is_empty()).then(|| why.join("; ")).and_then(say);
        (s, note)
    }
}
