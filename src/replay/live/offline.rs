//! `Client` in a build without the `live` feature: it never connects.

/// `Settings::resolve` refuses first, so this is only reached by code that skipped it.
use serde_json::Value;

use super::client::{ApiAnswer, NoReply, Settings, NOT_BUILT_IN};

pub(crate) struct Client {
    settings: Settings,
    pub sent: u32,
}

impl Client {
    pub(crate) fn new(settings: Settings) -> Client {
        Client { settings, sent: 0 }
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }

    pub(crate) fn send(&mut self, _request: &Value) -> Result<ApiAnswer, NoReply> {
        Err(NoReply(NOT_BUILT_IN.into()))
    }
}
