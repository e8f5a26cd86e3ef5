//! Reading the file a user picked in an `<input type="file">`: its text, delivered asynchronously.

use leptos::ev::Event;
use wasm_bindgen::JsCast;

/// Reads the first file chosen in the input behind `ev` and hands its text (or `None` when the
/// browser could not read it) to `then`. The input is cleared, so picking the same file again
/// fires another change. Does nothing when no file was chosen.
pub fn read_chosen_file(ev: &Event, then: impl FnOnce(Option<String>) + 'static) {
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
    leptos::task::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
        then(text.ok().map(|t| t.as_string().unwrap_or_default()));
    });
}
