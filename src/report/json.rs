//! Renders a [`VerifyReport`] as one JSON document (the shape is documented
//! in docs/reports.md: verdict, model, bounds, CBMC, property, check, witness,
//! diagnosis).

use super::document::VerifyReport;

/// The JSON document, pretty-printed, with a final newline.
pub fn render(report: &VerifyReport) -> String {
    match serde_json::to_string_pretty(report) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        // Serialising plain data cannot fail; keep a valid document anyway.
        Err(error) => format!(
            "{{\"verdict\": \"backend-error\", \"message\": {:?}}}\n",
            error.to_string()
        ),
    }
}
