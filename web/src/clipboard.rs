//! Copying text through the asynchronous clipboard API (`navigator.clipboard.writeText`).

use leptos::prelude::window;
use wasm_bindgen::JsCast;

/// Copies `text`; resolves to whether the browser accepted it (false when the API is missing,
/// the page is not focused or the permission is denied — callers then say how to copy by hand).
pub async fn copy(text: String) -> bool {
    let navigator = window().navigator();
    let Ok(clipboard) = js_sys::Reflect::get(&navigator, &"clipboard".into()) else {
        return false;
    };
    let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) else {
        return false;
    };
    let Some(write) = write.dyn_ref::<js_sys::Function>() else {
        return false;
    };
    let Ok(promise) = write.call1(&clipboard, &text.into()) else {
        return false;
    };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else {
        return false;
    };
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}
