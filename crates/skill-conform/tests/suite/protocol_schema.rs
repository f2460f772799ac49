//! The committed JSON Schema of the adapter protocol is the one the Rust types generate.

fn committed_schema_matches_the_protocol_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../adapters/protocol.schema.json");
    let committed = std::fs::read_to_string(&path).expect("adapters/protocol.schema.json exists");
    let generated =
        skill_ref::canonical::to_canonical_string(&skill_conform::session::protocol_schema());
    assert!(
        committed == generated,
        "adapters/protocol.schema.json is stale (hint: cargo run -q -p skill-conform -- protocol-schema > adapters/protocol.schema.json)"
    );
}

crate::tests![committed_schema_matches_the_protocol_types,];
