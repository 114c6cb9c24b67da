//! What `--report` shows of a bundle: its code objects (id, file, size, sections) and its
//! metadata as pretty JSON, as two documents the report diffs, and the kept objects.

use minrepro_driver::Document;

use crate::case::BundleCase;

/// One line per code object: id, file name, size and, when listed, its sections.
fn objects(case: &BundleCase) -> String {
    case.objects
        .iter()
        .map(|object| {
            let sections = object.sections.as_ref().map_or(String::new(), |listing| {
                let names: Vec<&str> = listing.sections.iter().map(|s| s.name.as_str()).collect();
                format!("; sections {}", names.join(" "))
            });
            format!(
                "{} (objects/{}, {} bytes){sections}\n",
                object.id,
                object.name,
                object.bytes.len()
            )
        })
        .collect()
}

/// The case's objects and metadata, as the report diffs them.
pub(crate) fn documents(case: &BundleCase) -> Vec<Document> {
    let metadata = serde_json::to_string_pretty(&case.metadata.to_value()).unwrap_or_default();
    vec![
        Document {
            name: "code objects".into(),
            text: objects(case),
        },
        Document {
            name: "metadata.json".into(),
            text: metadata + "\n",
        },
    ]
}

/// The section listing the kept objects.
pub(crate) fn kept(case: &BundleCase) -> (String, String) {
    (
        format!("Kept code objects ({})", case.objects.len()),
        objects(case),
    )
}
