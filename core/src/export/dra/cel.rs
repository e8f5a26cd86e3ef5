//! The CEL selector of a request: the device's `profile` and `productName` attributes, in the driver's domain.
//!
//! Kubernetes evaluates `spec.devices.requests[].selectors[].cel.expression` against each device
//! with `device.attributes["<domain>"]` holding the attributes of that domain
//! (docs/hardware-facts.md §13). String literals use single quotes, with `\` and `'` escaped, so
//! any product name reads back as itself.

use super::claims::DraRequest;
use crate::discover::resource_slice::NVIDIA_DRIVER;

/// `s` as a CEL string literal.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `device.attributes['gpu.nvidia.com'].<name>`.
fn attribute(name: &str) -> String {
    format!(
        "device.attributes[{}].{name}",
        string_literal(NVIDIA_DRIVER)
    )
}

impl DraRequest {
    /// The request's selector, or `None` when it selects nothing beyond its class.
    pub fn cel_expression(&self) -> Option<String> {
        let mut terms = Vec::new();
        if let Some(p) = &self.profile {
            terms.push(format!("{} == {}", attribute("profile"), string_literal(p)));
        }
        match self.product_names.as_slice() {
            [] => {}
            [one] => terms.push(format!(
                "{} == {}",
                attribute("productName"),
                string_literal(one)
            )),
            many => {
                let list: Vec<String> = many.iter().map(|n| string_literal(n)).collect();
                terms.push(format!(
                    "{} in [{}]",
                    attribute("productName"),
                    list.join(", ")
                ));
            }
        }
        (!terms.is_empty()).then(|| terms.join(" && "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::dra::claims::DeviceClass;

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(
            string_literal("NVIDIA A100 80GB PCIe"),
            "'NVIDIA A100 80GB PCIe'"
        );
        assert_eq!(string_literal("a'b\\c\n"), "'a\\'b\\\\c\\n'");
    }

    #[test]
    fn profile_and_board() {
        let r = DraRequest {
            name: "x".into(),
            class: DeviceClass::Mig,
            profile: Some("1g.10gb".into()),
            product_names: vec!["NVIDIA H100 PCIe".into()],
            count: 1,
            memory_mib: None,
            ask: None,
        };
        assert_eq!(
            r.cel_expression().unwrap(),
            "device.attributes['gpu.nvidia.com'].profile == '1g.10gb' && device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 PCIe'"
        );
        let any = DraRequest {
            profile: None,
            product_names: vec!["a".into(), "b".into()],
            ..r.clone()
        };
        assert_eq!(
            any.cel_expression().unwrap(),
            "device.attributes['gpu.nvidia.com'].productName in ['a', 'b']"
        );
        let bare = DraRequest {
            profile: None,
            product_names: vec![],
            ..r
        };
        assert_eq!(bare.cel_expression(), None);
    }
}
