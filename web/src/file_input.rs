//! Reading the file a user picked in an `<input type="file">`, and the text of a paste box, within
//! the core's input limit ([`MAX_INPUT_BYTES`]): larger input is refused by its size
//! before any of it is read or copied.

use gpu_share_core::api::{self, MAX_INPUT_BYTES};
use leptos::ev::Event;
use wasm_bindgen::JsCast;

/// The message for input over the limit (the core's words); nothing was read.
pub fn too_large(what: &str, size: f64) -> String {
    api::too_large(what, api::Oversize::File(size as u64)).message
}

/// Reads the first file chosen in the input behind `ev` and hands its text to `then`, or why it
/// was not read: larger than [`MAX_INPUT_BYTES`] (refused by its size, unread) or unreadable. The
/// input is cleared, so picking the same file again fires another change. Does nothing when no
/// file was chosen.
pub fn read_chosen_text(ev: &Event, then: impl FnOnce(Result<String, String>) + 'static) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    input.set_value("");
    if file.size() > MAX_INPUT_BYTES as f64 {
        then(Err(too_large(
            &format!("the file {}", file.name()),
            file.size(),
        )));
        return;
    }
    leptos::task::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
        then(match text {
            Ok(t) => Ok(t.as_string().unwrap_or_default()),
            Err(_) => Err(format!("the file {} could not be read", file.name())),
        });
    });
}

/// The text of the `<textarea>` (or `<input>`) behind an input event, or the message when it is
/// longer than [`MAX_INPUT_BYTES`]: its length is read from the page first, so an oversized
/// paste is never copied into WebAssembly; the field is then emptied.
pub fn pasted_text(ev: &Event) -> Result<String, String> {
    let Some(target) = ev.target() else {
        return Ok(String::new());
    };
    let value = js_sys::Reflect::get(&target, &"value".into()).unwrap_or_default();
    let Some(text) = value.dyn_ref::<js_sys::JsString>() else {
        return Ok(String::new());
    };
    // UTF-16 code units: never more than the UTF-8 bytes, so over the limit here is over it in bytes.
    let length = f64::from(text.length());
    if length > MAX_INPUT_BYTES as f64 {
        let _ = js_sys::Reflect::set(&target, &"value".into(), &"".into());
        return Err(too_large("the pasted text", length));
    }
    Ok(String::from(text))
}
