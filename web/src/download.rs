//! Downloads of generated text (CSV, JSON, SVG) and files (PNG): a Blob, an object URL and a click on a temporary link.

use wasm_bindgen::JsCast;

/// Offers `text` as a file named `filename`.
///
/// # Errors
/// The browser refused to create the Blob, the URL or the link.
pub fn download(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |what: &str| format!("could not prepare the download of {filename}: {what}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| fail("Blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("object URL"))?;
    if !click_link(&url, filename) {
        return Err(fail("link"));
    }
    Ok(())
}

/// Clicks a temporary link to `url` that downloads as `filename`, and revokes the URL later;
/// false when the browser gave no link.
pub fn click_link(url: &str, filename: &str) -> bool {
    let document = leptos::prelude::document();
    let Some(anchor) = document
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    else {
        return false;
    };
    anchor.set_href(url);
    anchor.set_download(filename);
    anchor.click();
    let url = url.to_string();
    // Revoke later: revoking at once can cancel the download in some browsers.
    leptos::prelude::set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
    true
}
