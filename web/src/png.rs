//! "Download PNG": the diagram's SVG drawn into a canvas at twice its size and offered as a file,
//! all in the page (the SVG is loaded from a `blob:` URL, which the page's CSP allows for images).

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Pixels per SVG unit in the PNG (sharp on high-density screens).
const SCALE: u32 = 2;

/// Draws `svg` and offers it as `filename`; says in `status` when the browser refuses a step.
pub fn download_png(filename: &'static str, svg: &str, status: RwSignal<Option<String>>) {
    if let Err(why) = start(filename, svg, status) {
        status.set(Some(format!("could not prepare the PNG: {why}")));
    }
}

fn start(
    filename: &'static str,
    svg: &str,
    status: RwSignal<Option<String>>,
) -> Result<(), &'static str> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(svg));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| "Blob")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "object URL")?;
    let image = web_sys::HtmlImageElement::new().map_err(|_| "image")?;
    let loaded = image.clone();
    let source = url.clone();
    let onload = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&source);
        if let Err(why) = draw(&loaded, filename) {
            status.set(Some(format!("could not prepare the PNG: {why}")));
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    image.set_src(&url);
    Ok(())
}

fn draw(image: &web_sys::HtmlImageElement, filename: &'static str) -> Result<(), &'static str> {
    let canvas = document()
        .create_element("canvas")
        .ok()
        .and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        .ok_or("canvas")?;
    let (w, h) = (image.natural_width().max(1), image.natural_height().max(1));
    canvas.set_width(w * SCALE);
    canvas.set_height(h * SCALE);
    let context = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        .ok_or("2d context")?;
    context
        .draw_image_with_html_image_element_and_dw_and_dh(
            image,
            0.0,
            0.0,
            f64::from(w * SCALE),
            f64::from(h * SCALE),
        )
        .map_err(|_| "drawing")?;
    let done = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
        let Some(blob) = blob else { return };
        if let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) {
            crate::download::click_link(&url, filename);
        }
    });
    canvas
        .to_blob(done.unchecked_ref())
        .map_err(|_| "PNG encoding")
}
